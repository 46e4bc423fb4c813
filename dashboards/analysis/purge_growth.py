"""How fast the history list grows now (its current segment), and when it would reach a threshold at that pace."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

import numpy as np

from dashboards.analysis.segment import FLAT_NOISE, OWN_POLLS, TURN_SIGMAS, current_segment, line

# What the pages read back to find the current segment: a segment longer than this reads "since at least".
REACH = timedelta(minutes=10)
MIN_POLLS = 3  # fewer polls since the turn make no trend: two polls give a difference, not a pace to act on
FLAT_PER_MINUTE = 1.0  # below this many undo log units a minute either way the line is flat
LATE_POLL = 4.0  # a hole whose polls around it are at most this many usual intervals apart: late polls, no outage
# Undo log units: a history this short is no backlog whatever the slope (the demo's wanders 0-90 while purge keeps
# up), and a rise this small over few polls no growth.
HANDFUL = 100


@dataclass(frozen=True)
class Trend:
    """The slope of the current segment: the polls since the last turning point (segment.current_segment)."""

    per_second: float | None  # None: fewer than MIN_POLLS polls since the turn, or none at all
    window: timedelta  # from the segment's first poll to its last
    since: datetime | None = None  # the segment's first poll: the turning point
    polls: int = 0
    noise: float = 0.0  # the series' noise (segment.noise), in undo log units
    after_hole: bool = False  # the segment starts at the first poll after a hole in polling
    at_least: bool = False  # it starts at the first poll read: the turn may lie earlier
    scatter: float = 0.0  # the segment's polls' standard deviation around its line (segment.line)
    significant: bool = True  # the slope is told from 0 against that scatter and the noise (segment.line)
    before: float | None = None  # the poll before the segment's first: where it turned from (None: a hole, or none)
    turned: "Turn | None" = None  # where it turned from (turned_from); None where `before` is
    # Too few polls for a pace, fallen from a segment that was draining: that drain's pace (undo log units a
    # second, < 0); the fall carries it on, it is no read view released (drained_into).
    drained_per_second: float | None = None

    @property
    def per_minute(self) -> float | None:
        return None if self.per_second is None else self.per_second * 60

    @property
    def drained_per_minute(self) -> float | None:
        return None if self.drained_per_second is None else self.drained_per_second * 60

    @property
    def direction(self) -> str:
        """'growing', 'draining', 'flat', or '' when there is no trend."""
        if self.per_second is None:
            return ""
        moved = abs(self.per_second) * self.window.total_seconds()
        if (abs(self.per_second) * 60 < FLAT_PER_MINUTE or moved <= FLAT_NOISE * self.noise
                or moved <= TURN_SIGMAS * self.scatter or not (self.significant or self.steep_rise)):
            return "flat"
        return "growing" if self.per_second > 0 else "draining"

    @property
    def steep_rise(self) -> bool:
        """A rise over fewer than OWN_POLLS polls whose slope is not told from 0 only because so few polls bend (a
        load's first: 0, 0, 27,305, 48,499 leave the t test two degrees of freedom): growing, not flat, on the
        trend box, the fleet's column and the verdict alike ("early": too few polls for a pace)."""
        if self.per_second is None or self.per_second <= 0 or self.polls >= OWN_POLLS:
            return False
        return self.per_second * self.window.total_seconds() > HANDFUL


def current_trend(ts: Sequence[datetime], values: Sequence[float | None], look_back: bool = True) -> Trend:
    """The least-squares slope of the polls since the last turning point, after the last outage (last_outage).

    A line fitted across a turn is no pace (a 5-minute fit over a sawtooth read "growing" right after
    a drain), nor is one across an outage. look_back: where the turn is too recent for a pace and fell, the
    trend of the polls before it too (drained_into).
    """
    hole = last_outage(ts, values)
    polled = [i for i in range(hole + 1, len(values)) if values[i] is not None]
    if not polled:
        return Trend(None, timedelta(0))
    pts = [(ts[i], v) for i in polled if (v := values[i]) is not None]
    xs = [(t - pts[-1][0]).total_seconds() for t, _ in pts]
    ys = [float(v) for _, v in pts]
    seg = current_segment(xs, ys)
    used = pts[seg.start:]
    fit = line(xs[seg.start:], ys[seg.start:], seg.noise)
    first = polled[seg.start]  # the segment's first poll, in values
    short = len(used) < MIN_POLLS
    drained = drained_into(ts[:first], values[:first], ys[seg.start - 1], ys[-1]) if (
        look_back and short and seg.start) else None
    return Trend(None if short else fit.slope, used[-1][0] - used[0][0], used[0][0], len(used),
                 seg.noise, after_hole=first > 0 and values[first - 1] is None, at_least=first == 0,
                 scatter=fit.scatter, significant=fit.significant, before=ys[seg.start - 1] if seg.start else None,
                 turned=turned_from(used, ys[seg.start - 1]) if seg.start else None, drained_per_second=drained)


def drained_into(ts: Sequence[datetime], values: Sequence[float | None], before: float, newest: float) -> float | None:
    """The pace of the drain a fall carried on: the trend of the polls before the turn (ts, values), where it was
    draining and the newest poll is below the poll before the turn (`before`); None otherwise. A drain speeds up
    as the backlog empties, and its last polls can fall under a quarter of the level (segment.last_cliff), which
    read as a read view released while the page had said "draining" a poll before."""
    if newest >= before:
        return None
    prior = current_trend(ts, values, look_back=False)
    return prior.per_second if prior.direction == "draining" else None


class Turn(NamedTuple):
    """The last turn: the value it turned from, the first poll that read the new way, and the polls from it."""

    came_from: float
    at: datetime
    polls: int


def turned_from(used: Sequence[tuple[datetime, float]], before: float) -> Turn:
    """Where the segment `used` turned from, the first poll that read the new way and the polls from it: the poll
    before it and its first poll, unless its first poll is further from the newest than that poll is (a drain's
    segment starts at its peak: 150,456 then 97,913 fell from the peak, not from the 145,044 before it)."""
    newest = used[-1][1]
    if len(used) > 1 and abs(used[0][1] - newest) > abs(before - newest):
        return Turn(used[0][1], used[1][0], len(used) - 1)
    return Turn(before, used[0][0], len(used))


def last_outage(ts: Sequence[datetime], values: Sequence[float | None]) -> int:
    """The index of the last hole (None) the trend starts after, -1 for none: a hole between two polls more than
    LATE_POLL usual intervals apart (the median step between polls). A late poll is none: one 6 s after the one
    before on 2 s polls (a hole to store.breaks, over 1.5 intervals) restarted the trend from the poll after it."""
    if None not in values:  # no hole (the usual case): no median of the steps to take
        return -1
    polled = [t.timestamp() for t, v in zip(ts, values, strict=True) if v is not None]
    usual = float(np.median(np.diff(polled))) if len(polled) > 1 else 0.0
    for i in range(len(values) - 1, -1, -1):
        if values[i] is not None:
            continue
        before = next((ts[j] for j in range(i - 1, -1, -1) if values[j] is not None), None)
        after = next((ts[j] for j in range(i + 1, len(values)) if values[j] is not None), None)
        if before is None or after is None or (after - before).total_seconds() > LATE_POLL * usual:
            return i
    return -1


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


FARTHEST = timedelta(days=100 * 365)  # a time to the threshold beyond this is no forecast (and overflows)


def time_to_threshold(current: float | None, trend: Trend, threshold: float) -> timedelta | None:
    """At the recent pace; None unless the line is growing, still below the threshold and within FARTHEST."""
    if current is None or trend.per_second is None or trend.direction != "growing" or current >= threshold:
        return None
    seconds = (threshold - current) / trend.per_second
    return timedelta(seconds=seconds) if seconds <= FARTHEST.total_seconds() else None
