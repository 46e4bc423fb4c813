"""Whether a server's polls fail now: what a page whose range reaches now says in place of an empty chart."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from dashboards.analysis.fleet_state import DOWN, NEVER, STALE, server_state
from dashboards.fleet_rows import health_of
from dashboards.timerange import TimeRange
from servers.models import Server


@dataclass(frozen=True)
class Unreachable:
    since: datetime | None  # the last successful poll
    why: str
    tried: bool = True  # False: never polled at all (a server just added, or no worker running)

    @property
    def text(self) -> str:
        """What follows "<server> is" on the page."""
        if not self.tried:
            return self.why  # nothing has failed yet: "unreachable" would send the user after the network
        when = f"since {self.since:%Y-%m-%d %H:%M:%S} UTC" if self.since else "and never polled successfully"
        return f"unreachable {when}: {self.why}"


def unreachable(server: Server, tr: TimeRange) -> Unreachable | None:
    """Whether polls of the server fail now (or have stopped), for a range that reaches now."""
    now = timezone.now()
    if tr.end < now - timedelta(minutes=1):
        return None  # a past range: its own data says what happened
    health = health_of(server)
    state = server_state(server, health, now)
    if state.name not in (DOWN, STALE, NEVER):
        return None
    return Unreachable(health.last_success_at if health else None, state.why, tried=state.name != NEVER)
