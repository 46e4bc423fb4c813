"""A run's settings: the var:* snapshot it ran with, and what changed since the previous run."""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from servers.models import Run
from store import query

VAR_PREFIX = "var:"
# Variables are stored on change only. From the hour before a run to its end
# they are read at full resolution (exact times of changes); the value in force
# before that comes from whatever the store keeps (its rollups' last bucket).
LOOKBACK = timedelta(days=400)
FULL_WIDTH = 30  # seconds per point asked for: finer than the store's 1-minute rollups
OLD_POINTS = 20_000


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


def _points(server_id: int, names: list[str], start: datetime, end: datetime, max_points: int) -> dict:
    found = query.series([server_id], names, start, end, max_points=max_points)
    return {s.metric: [(t, v) for t, v in zip(s.ts, s.values, strict=True) if v is not None] for s in found}


def snapshot(server_id: int, start: datetime, end: datetime) -> list[Setting]:
    """Each variable's value at the start (or its first reading within the run)."""
    since = start.replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)  # whole rollup hours
    points = _points(server_id, [VAR_PREFIX + "*"], since, end,
                     math.ceil((end - since).total_seconds() / FULL_WIDTH) + 2)
    older = [n for n, pts in points.items() if not any(t <= start for t, _ in pts)]
    if older:
        earlier = _points(server_id, older, start - LOOKBACK, since - timedelta(microseconds=1), OLD_POINTS)
        for name, pts in earlier.items():
            points[name] = pts[-1:] + points[name]
    settings = []
    for name, pts in points.items():
        before = [v for t, v in pts if t <= start]
        during = [v for t, v in pts if start < t <= end]
        if not before and not during:
            continue
        value = before[-1] if before else during[0]
        settings.append(Setting(name[len(VAR_PREFIX):], value, any(v != value for v in during)))
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
