"""How fast the history list grows, and when it would reach a threshold at that pace."""

from collections.abc import Sequence
from datetime import datetime, timedelta


def growth_per_second(
    ts: Sequence[datetime], values: Sequence[float | None], window: timedelta
) -> float | None:
    """Least-squares slope over the last `window` of the series (units per second)."""
    pts = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    if len(pts) < 2:
        return None
    since = pts[-1][0] - window
    pts = [(t, v) for t, v in pts if t >= since]
    if len(pts) < 2:
        return None
    x0 = pts[0][0]
    xs = [(t - x0).total_seconds() for t, _ in pts]
    ys = [v for _, v in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    if not var:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var


def time_to_threshold(current: float | None, slope: float | None, threshold: float) -> timedelta | None:
    """None when the line is not growing (or there is nothing to project from)."""
    if current is None or slope is None or slope <= 0:
        return None
    if current >= threshold:
        return timedelta(0)
    return timedelta(seconds=(threshold - current) / slope)


def last_value(values: Sequence[float | None]) -> float | None:
    return next((v for v in reversed(values) if v is not None), None)
