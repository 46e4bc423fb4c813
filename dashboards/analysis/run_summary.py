"""A run's summary arithmetic: rates over the seconds covered, ratios to a reference, the warm-up in its TPS."""

from datetime import datetime
from typing import Any

from dashboards.analysis.run_verdict import MIN_POINTS, warmup_end


def known(series: Any) -> list[float]:
    """A series' values without its holes; [] for no series."""
    return [v for v in series.values if v is not None] if series else []


def rate(total: float, seconds: float) -> float | None:
    return total / seconds if seconds else None


def ratio(value: float | None, reference: float | None) -> float | None:
    """value / reference, the seeds' 'X faster' column; None when undefined."""
    if value is None or not reference:
        return None
    return value / reference


def warmup_found(started_at: datetime, points: Any) -> int:
    """Seconds from the run's start to its last warm-up poll (run_verdict.warmup_end over its TPS polls); 0 for none."""
    polls = [(t, v) for t, v in zip(points.ts, points.values, strict=True) if v is not None]
    if len(polls) < MIN_POINTS:
        return 0
    first = warmup_end([v for _, v in polls])
    if not first:
        return 0
    # The last warm-up poll's time: the first steady poll measured from it, and its interval must lie inside.
    return int((polls[first - 1][0] - started_at).total_seconds())
