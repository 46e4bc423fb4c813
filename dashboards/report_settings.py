"""A run's settings: the var:* snapshot it ran with, and what changed since the previous run."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from monitor.models import Run
from monitor.store import query

VAR_PREFIX = "var:"
# Variables are stored on change only: look this far back for the value in force.
LOOKBACK = timedelta(days=400)
MAX_POINTS = 100_000


@dataclass(frozen=True)
class Setting:
    name: str  # without the var: prefix
    value: float | None
    changed_during_run: bool = False


@dataclass(frozen=True)
class Change:
    name: str
    before: float | None  # None: not recorded for the previous run
    after: float | None


def snapshot(server_id: int, start: datetime, end: datetime) -> list[Setting]:
    """Each variable's value at the start (or its first reading within the run)."""
    found = query.series([server_id], [VAR_PREFIX + "*"], start - LOOKBACK, end, max_points=MAX_POINTS)
    settings = []
    for series in found:
        points = [(t, v) for t, v in zip(series.ts, series.values, strict=True) if v is not None]
        before = [v for t, v in points if t <= start]
        during = [v for t, v in points if start < t <= end]
        if not before and not during:
            continue
        value = before[-1] if before else during[0]
        changed = any(v != value for v in during)
        settings.append(Setting(series.metric[len(VAR_PREFIX):], value, changed))
    return sorted(settings, key=lambda s: s.name)


def previous_run(run: Run) -> Run | None:
    return (
        Run.objects.filter(server_id=run.server_id, started_at__lt=run.started_at)
        .order_by("-started_at").first()
    )


def changes(before: list[Setting], after: list[Setting]) -> list[Change]:
    """Variables whose value differs (or that appear on one side only)."""
    old = {s.name: s.value for s in before}
    new = {s.name: s.value for s in after}
    names = sorted(set(old) | set(new))
    return [Change(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n)]


def show(value: float | None) -> str:
    """Variables are mostly integers: 1024, not 1024.0."""
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else str(value)
