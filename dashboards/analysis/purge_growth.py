"""How fast the history list grows now, and when it would reach a threshold at that pace."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

# The trend is the slope of the last few minutes: over a longer window a read
# view that closed a minute ago still reads as growth (the climb outweighs the drop).
RECENT = timedelta(minutes=5)
FLAT_PER_MINUTE = 1.0  # below this many undo log units a minute either way the line is flat


@dataclass(frozen=True)
class Trend:
    per_second: float | None
    window: timedelta  # the span of the points the slope was fitted to

    @property
    def per_minute(self) -> float | None:
        return None if self.per_second is None else self.per_second * 60

    @property
    def direction(self) -> str:
        """'growing', 'draining', 'flat', or '' when there is nothing to fit."""
        if self.per_minute is None:
            return ""
        if abs(self.per_minute) < FLAT_PER_MINUTE:
            return "flat"
        return "growing" if self.per_minute > 0 else "draining"

    @property
    def window_label(self) -> str:
        seconds = int(self.window.total_seconds())
        return f"{seconds // 60} min {seconds % 60} s" if seconds % 60 else f"{seconds // 60} min"


def recent_trend(ts: Sequence[datetime], values: Sequence[float | None], window: timedelta = RECENT) -> Trend:
    """The least-squares slope over the last `window` of the series, and the span it really used.

    Only the polls after the last hole (None) count: a line fitted across an outage is no pace
    (back at 5,000 and draining read as growing 600/min from the level before it).
    """
    hole = max((i for i, v in enumerate(values) if v is None), default=-1)
    ts, values = ts[hole + 1:], values[hole + 1:]
    pts = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    if not pts:
        return Trend(None, timedelta(0))
    used = [t for t, _ in pts if t >= pts[-1][0] - window]
    return Trend(growth_per_second(ts, values, window), used[-1] - used[0])


def above_since(ts: Sequence[datetime], values: Sequence[float | None], threshold: float) -> datetime | None:
    """When the latest run of values at or above the threshold began; None if the last value is below."""
    return run_start(zip(reversed(ts), reversed(values), strict=True), threshold)


@dataclass(frozen=True)
class Since:
    """When the latest run at or above the threshold began, as far as the readings given go."""

    at: datetime
    at_least: bool  # the readings ran out before one below the threshold: the run may have begun earlier


def run_start(newest_first: Iterable[tuple[datetime, float | None]], threshold: float) -> datetime | None:
    """above_since() over readings given newest first: stops at the first one below, reading no further."""
    found = run_since(newest_first, threshold)
    return found.at if found else None


def run_since(newest_first: Iterable[tuple[datetime, float | None]], threshold: float) -> Since | None:
    """run_start(), and whether a reading below the threshold was found before it; None if the newest is below."""
    since = None
    for t, v in newest_first:
        if v is None:
            continue
        if v < threshold:
            return Since(since, False) if since else None
        since = t
    return Since(since, True) if since else None


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


def time_to_threshold(current: float | None, trend: Trend, threshold: float) -> timedelta | None:
    """At the recent pace; None unless the line is growing and still below the threshold."""
    if current is None or trend.direction != "growing" or current >= threshold:
        return None
    return timedelta(seconds=(threshold - current) / trend.per_second)
