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


@dataclass(frozen=True)
class Segment:
    start: int  # index of the segment's first point in the series given
    noise: float  # the series' noise (a standard deviation, in the series' units)


def noise(values: Sequence[float]) -> float:
    """The jitter of the series around its local line: robust to the few corners of a sawtooth.

    From the second differences, which a straight stretch cancels and a turn touches in one place only:
    1.4826 x their median absolute deviation / sqrt(6), at least NOISE_FLOOR.
    """
    if len(values) < 3:
        return NOISE_FLOOR
    d2 = np.diff(np.asarray(values, dtype=float), n=2)
    mad = float(np.median(np.abs(d2 - np.median(d2))))
    return max(MAD_TO_SIGMA * mad / SECOND_DIFF, NOISE_FLOOR)


def current_segment(xs: Sequence[float], ys: Sequence[float]) -> Segment:
    """Walk back from the newest point while the points before it keep the segment's direction.

    The segment starts with the two newest points. The point before it is judged against the
    prediction band of the segment's least-squares line: TURN_SIGMAS x noise x sqrt(1 + 1/n +
    (x - mean x)^2 / sum (x - mean x)^2), wider for a line fitted to few points, farther from them.
    Inside it, it joins. Outside it, together with the point before it on the same side, it is
    the turn and the segment starts after it, unless it carries the segment's direction further
    back: a draining segment's earlier point above the band and above the segment's first point,
    a growing one's below both (a drain that slows as it empties is one drain, from its peak).
    One stray point outside the band joins without bending the line the next ones are judged by.
    One pass.
    """
    sigma = noise(ys)
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
            return Segment(j + 1, sigma)
        if not off or confirmed:
            fit.add(xs[j], ys[j])
    return Segment(0, sigma)


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
