"""A run's settings: the var:* snapshot it ran with, and what changed since the previous run."""

import math
from datetime import datetime, timedelta

from dashboards.analysis.settings_diff import VAR_PREFIX, Setting, settings_at
from servers.models import Run
from store import query

# Variables are stored on change only. From the hour before a run to its end
# they are read at full resolution (exact times of changes); the value in force
# before that comes from whatever the store keeps (its rollups' last bucket).
LOOKBACK = timedelta(days=400)
FULL_WIDTH = 30  # seconds per point asked for: finer than the store's 1-minute rollups
OLD_POINTS = 20_000


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
    return settings_at(points, start, end)


def previous_run(run: Run) -> Run | None:
    return (
        Run.objects.filter(server_id=run.server_id, started_at__lt=run.started_at)
        .order_by("-started_at").first()
    )


def show(value: float | None) -> str:
    """Variables are mostly integers: 1024, not 1024.0."""
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else str(value)
