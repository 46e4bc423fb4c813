"""The current segment of a series: the polls since its last turning point, and the noise that defines a turn."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# 1.4826 x the median absolute deviation estimates a normal standard deviation; a second difference of
# independent noise has sqrt(6) times the noise's deviation.
MAD_TO_SIGMA = 1.4826
SECOND_DIFF = 6 ** 0.5
NOISE_FLOOR = 1.0  # a line with no jitter at all (whole undo log units) still allows a unit of it
FLAT_NOISE = 2.0  # a line that moved less than this many noise deviations end to end is flat
TURN_SIGMAS = 4.0  # a poll further than this many deviations of the line's prediction is off it
STEP_RATIO = 10.0  # a poll-to-poll change this many times all the polls after it span is a step (a release)
FLOOR_POLLS = 5  # a drain whose newest this many polls lie on a flat line has reached its floor
FLOOR_SIGMAS = 2.0  # ... when that line is flatter than the drain's by this many of its standard errors


@dataclass(frozen=True)
class Segment:
    start: int  # index of the segment's first point in the series given
    noise: float  # the series' noise (a standard deviation, in the series' units)


def noise(values: Sequence[float], cut: int = 0) -> float:
    """The jitter of the series around its local line: robust to the few corners of a sawtooth.

    From the second differences, which a straight stretch cancels and a turn touches in one place only:
    1.4826 x their median absolute deviation / sqrt(6), at least NOISE_FLOOR. With `cut`, those
    across the step before values[cut] are left out: a cliff in a short series is no jitter.
    """
    parts = [np.diff(np.asarray(p, dtype=float), n=2) for p in (values[:cut], values[cut:]) if len(p) >= 3]
    if not parts:
        return NOISE_FLOOR
    d2 = np.concatenate(parts)
    mad = float(np.median(np.abs(d2 - np.median(d2))))
    return max(MAD_TO_SIGMA * mad / SECOND_DIFF, NOISE_FLOOR)


def last_step(ys: Sequence[float]) -> int:
    """The index of the first poll after the newest step change, 0 when there is none.

    A step: the two polls before it lie on the same side of the poll after it, each further from it
    than STEP_RATIO x the span (max - min) of the polls from it to the newest (at least two of them)
    and STEP_RATIO x the noise on either side of it. A released read view drops the history length
    from 90,047 to 464 in one poll; a drain that slows as it empties moves each poll by about what
    all the later polls move together, a tenth of a step's ratio. One poll out is a stray, not a step.
    """
    if len(ys) < 3:
        return 0
    y = np.asarray(ys, dtype=float)
    # The span of the polls from k to the newest, for every k at once (numpy: the fleet does this per server).
    span = np.maximum.accumulate(y[::-1])[::-1] - np.minimum.accumulate(y[::-1])[::-1]
    reach = STEP_RATIO * np.maximum(span, NOISE_FLOOR)
    before = np.abs(y[:-1] - y[1:]) > reach[1:]  # before[k - 1]: ys[k - 1] is beyond ys[k]'s reach
    for k in np.flatnonzero(before[:-1])[::-1] + 1:  # k <= len - 2: at least two polls from k on
        way = _beyond(ys, int(k), float(reach[k]))
        # The noise (a median over the series) only where the span allows a step: rare, and O(n) each.
        if way and _beyond(ys, int(k), STEP_RATIO * noise(ys, int(k))) == way:
            return int(k)
    return 0


def _beyond(ys: Sequence[float], k: int, reach: float) -> int:
    """+1 or -1: the two polls before ys[k] (one at the series' start) are both above or below it by more than reach."""
    way = _side(ys[k - 1] - ys[k], reach)
    return way if way and (k == 1 or _side(ys[k - 2] - ys[k], reach) == way) else 0


def _side(change: float, reach: float) -> int:
    return 0 if abs(change) <= reach else (1 if change > 0 else -1)


def current_segment(xs: Sequence[float], ys: Sequence[float]) -> Segment:
    """The polls since the last turn: after the newest step (last_step), walked back (walk_back), to the floor.

    The noise is measured on both sides of the step, not across it. A draining segment whose newest
    polls have reached their floor (floor_start) starts at that floor: it is flat, not draining.
    """
    cut = last_step(ys)
    sigma = noise(ys, cut)
    start = cut + walk_back(xs[cut:], ys[cut:], sigma)
    return Segment(floor_start(xs, ys, start, sigma), sigma)


def walk_back(xs: Sequence[float], ys: Sequence[float], sigma: float) -> int:
    """Walk back from the newest point while the points before it keep the segment's direction.

    The segment starts with the two newest points. The point before it is judged against the
    prediction band of the segment's least-squares line: TURN_SIGMAS x noise x sqrt(1 + 1/n +
    (x - mean x)^2 / sum (x - mean x)^2), wider for a line fitted to few points, farther from them.
    Inside it, it joins. Outside it, together with the point before it on the same side, it is
    the turn and the segment starts after it, unless it carries the segment's direction further
    back: a draining segment's earlier point above the band and above the segment's first point,
    a growing one's below both (a drain that slows as it empties is one drain, from its peak).
    One stray point outside the band joins without bending the line the next ones are judged by.
    One pass; the index of the segment's first point.
    """
    start = max(len(xs) - 2, 0)
    fit = _Sums()
    for i in range(start, len(xs)):
        fit.add(xs[i], ys[i])
    for j in range(start - 1, -1, -1):
        off = fit.off(xs[j], ys[j], sigma)
        confirmed = off != 0 and (j == 0 or fit.off(xs[j - 1], ys[j - 1], sigma) == off)
        way = fit.direction(sigma)
        further = way != 0 and off == -way and (ys[j] - ys[j + 1]) * way < 0
        if confirmed and not further:
            return j + 1
        if not off or confirmed:
            fit.add(xs[j], ys[j])
    return 0


def floor_start(xs: Sequence[float], ys: Sequence[float], start: int, sigma: float) -> int:
    """Where a draining segment's floor begins: its newest polls that lie on a flat line; else `start`.

    The newest FLOOR_POLLS polls, when their own line moved no more than FLAT_NOISE noise deviations
    (flat, as Trend.direction judges it), and every poll before them while their line stays flat,
    provided that line is flatter than the segment's by more than FLOOR_SIGMAS of its standard error:
    a drain that reached 0, or the level a read view still holds, keeps up from there on; a slow
    drain whose newest polls move less than the noise is still the one drain.
    """
    whole = _Sums()
    for i in range(start, len(xs)):
        whole.add(xs[i], ys[i])
    if len(xs) - start < FLOOR_POLLS or whole.direction(sigma) >= 0:
        return start
    tail = _Sums()
    for i in range(len(xs) - 1, len(xs) - FLOOR_POLLS - 1, -1):
        tail.add(xs[i], ys[i])
    if tail.direction(sigma) != 0:
        return start
    floor = len(xs) - FLOOR_POLLS
    while floor > start:
        longer = tail.copy()
        longer.add(xs[floor - 1], ys[floor - 1])
        if longer.direction(sigma) != 0:
            break
        tail, floor = longer, floor - 1
    return floor if tail.flatter_than(whole.slope() or 0.0, sigma) else start


class _Sums:
    """Running sums of a least-squares line."""

    def __init__(self) -> None:
        self.n = self.sx = self.sy = self.sxx = self.sxy = 0.0
        self.lo, self.hi = float("inf"), float("-inf")

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.sxy += x * y
        self.lo, self.hi = min(self.lo, x), max(self.hi, x)

    def copy(self) -> "_Sums":
        other = _Sums()
        other.__dict__.update(self.__dict__)
        return other

    def flatter_than(self, b: float, sigma: float) -> bool:
        """Its slope above b (a drain's, negative) by more than FLOOR_SIGMAS standard errors (sigma / sqrt(Sxx))."""
        spread = self.sxx - self.sx * self.sx / self.n
        return spread > 0 and ((self.slope() or 0.0) - b) * spread ** 0.5 > FLOOR_SIGMAS * sigma

    def slope(self) -> float | None:
        var = self.n * self.sxx - self.sx * self.sx
        return (self.n * self.sxy - self.sx * self.sy) / var if var > 0 else None

    def direction(self, sigma: float) -> int:
        """+1 growing, -1 draining, 0 flat: moved less than FLAT_NOISE noise deviations end to end."""
        b = self.slope() or 0.0
        return 0 if abs(b) * (self.hi - self.lo) <= FLAT_NOISE * sigma else (1 if b > 0 else -1)

    def off(self, x: float, y: float, sigma: float) -> int:
        """+1 above the line's prediction band at x, -1 below it, 0 inside it."""
        b = self.slope() or 0.0
        mean_x = self.sx / self.n
        a = self.sy / self.n - b * mean_x
        spread = self.sxx - self.sx * mean_x
        band = TURN_SIGMAS * sigma * (1 + 1 / self.n + ((x - mean_x) ** 2 / spread if spread > 0 else 0)) ** 0.5
        miss = y - (a + b * x)
        return 0 if abs(miss) <= band else (1 if miss > 0 else -1)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The least-squares slope of the points (None for fewer than two distinct xs)."""
    fit = _Sums()
    for x, y in zip(xs, ys, strict=True):
        fit.add(x, y)
    return fit.slope()
