"""A server's state for the fleet overview, from its collector health row."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from collectors.status import is_failing, source_error

UP, DOWN, STALE, NEVER, DISABLED = "up", "down", "stale", "never polled", "disabled"
STALE_AFTER_POLLS = 3
MIN_STALE = timedelta(seconds=60)


@dataclass(frozen=True)
class State:
    name: str
    why: str


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
        return State(NEVER, "not polled yet: is the worker running? (make run starts it)")
    if health.consecutive_failures:
        why = health.last_error or "the last poll failed"
        failed = health.consecutive_failures
        return State(DOWN, f"{failed} failed poll{'s' if failed > 1 else ''} in a row: {why}")
    limit = stale_limit(server)
    last_ok = health.last_success_at or health.last_poll_at
    if now - last_ok > limit:
        return State(STALE, f"last successful poll {ago(now - last_ok)} ago (every {server.poll_interval} s "
                            "expected): is the Celery worker and beat running?")
    return State(UP, failing_sources(server.name, health.sources or {}))


def stale_limit(server) -> timedelta:
    """How old the last success may be before the server is stale; the fleet's figures older than this are not "now"."""
    return max(MIN_STALE, timedelta(seconds=STALE_AFTER_POLLS * server.poll_interval))


def failing_sources(server: str, sources: dict) -> str:
    """Up, but say which sources fail: a failing source must not hide behind the others.

    The alerts' own test of failing: a source this flavor or version does not have is no failure.
    """
    return "; ".join(source_error(server, name, info) for name, info in sorted(sources.items())
                     if isinstance(info, dict) and is_failing(info))
