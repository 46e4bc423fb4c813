"""A server's state for the fleet overview, from its collector health row."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from collectors.schedule import first_poll_within
from collectors.status import OFF, is_failing, source_error, status_of

UP, DOWN, STALE, NEVER, DISABLED = "up", "down", "stale", "never polled", "disabled"
STALE_AFTER_POLLS = 3
MIN_STALE = timedelta(seconds=60)
# The sources that read performance_schema alone: with it OFF each says so, at length, with the same fix.
PFS_SOURCES = ("innodb_mutex", "pfs_waits", "statements", "wait_instruments")


@dataclass(frozen=True)
class State:
    name: str
    why: str  # every failing source's words (the fleet CSV's)
    pfs_off: tuple[str, ...] = ()  # sources reading nothing as performance_schema is OFF: one line on the page
    rest: str = ""  # why, the pfs_off sources left out

    @property
    def short_why(self) -> str:
        """What the page's state cell says beside its performance_schema line."""
        return self.rest if self.pfs_off else self.why


def ago(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def server_state(server, health, now: datetime) -> State:
    """health: collectors.models.ServerHealth or None (never polled)."""
    if not server.enabled:
        return State(DISABLED, "polling is switched off for this server")
    if health is None or health.last_poll_at is None:
        return State(NEVER, not_polled_why(server, now))
    if health.consecutive_failures:
        why = health.last_error or "the last poll failed"
        failed = health.consecutive_failures
        return State(DOWN, f"{failed} failed poll{'s' if failed > 1 else ''} in a row: {why}")
    limit = stale_limit(server)
    last_ok = health.last_success_at or health.last_poll_at
    if now - last_ok > limit:
        return State(STALE, f"last successful poll {ago(now - last_ok)} ago (every {server.poll_interval} s "
                            "expected): is the Celery worker and beat running?")
    sources = health.sources or {}
    off = pfs_off(sources)
    return State(UP, failing_sources(server.name, sources), off, failing_sources(server.name, sources, skip=off))


def not_polled_why(server, now: datetime) -> str:
    """Why a server has no poll yet. New servers' first polls are spread over their first interval, at most
    a minute (collectors.schedule): only past that, plus the staleness margin, is the worker the likely reason."""
    added = getattr(server, "created_at", None)  # the fleet's light read names the state only
    spread = first_poll_within(server.poll_interval)
    due = added + timedelta(seconds=spread) if added else now
    if added is None or now > due + stale_limit(server):
        return "not polled yet: is the worker running? (make run starts it)"
    return (f"not polled yet: added at {added.astimezone(UTC):%H:%M:%S} UTC, first poll due by "
            f"{due.astimezone(UTC):%H:%M:%S} UTC (new servers' first polls are spread over {spread} s)")


def stale_limit(server) -> timedelta:
    """How old the last success may be before the server is stale; the fleet's figures older than this are not "now"."""
    return max(MIN_STALE, timedelta(seconds=STALE_AFTER_POLLS * server.poll_interval))


def failing_sources(server: str, sources: dict, skip: tuple[str, ...] = ()) -> str:
    """Up, but say which sources fail: a failing source must not hide behind the others (`skip`: those said apart).

    The alerts' own test of failing: a source this flavor or version does not have is no failure.
    """
    return "; ".join(source_error(server, name, info) for name, info in sorted(sources.items())
                     if isinstance(info, dict) and is_failing(info) and name not in skip)


def pfs_off(sources: dict) -> tuple[str, ...]:
    """The PFS_SOURCES off in the latest poll, where pfs_waits is: it is off only when performance_schema is OFF
    (collectors.source.require_performance_schema), so they read nothing for that one reason."""
    if status_of(sources.get("pfs_waits") or {"ok": True}) != OFF:
        return ()
    return tuple(n for n in PFS_SOURCES if isinstance(sources.get(n), dict) and status_of(sources[n]) == OFF)
