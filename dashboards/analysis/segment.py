"""The current segment of a series: the polls since its last turning point, and the noise that defines a turn."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import mul

import numpy as np

from dashboards.analysis.ab_ratio import t_quantile

# 1.4826 x the median absolute deviation estimates a normal standard deviation; a second difference of
# independent noise has sqrt(6) times the noise's deviation.
MAD_TO_SIGMA = 1.4826
SECOND_DIFF = 6 ** 0.5
NOISE_FLOOR = 1.0  # a line with no jitter at all (whole undo log units) still allows a unit of it
FLAT_NOISE = 2.0  # a line that moved less than this many noise deviations end to end is flat
TURN_SIGMAS = 4.0  # a poll further than this many deviations of the line's prediction is off it
CLIFF_SHARE = 0.25  # a fall within two polls to below this share of the level is a cliff (a released read view)
CLIFF_MIN = 1000.0  # undo logs: a cliff falls at least this far, as a hump rises (history_shape.HUMP_MIN)
SURE = 0.975  # a slope is a trend when its 95 % interval (two-sided) leaves out 0
OWN_POLLS = 8  # polls enough to measure a stretch's own noise (6 second differences)
RECENT = 2 * OWN_POLLS  # the newest polls, whose own noise is the jitter of now
NEW_JITTER = 2.0  # their noise this many times the series' is another regime (one estimate varies ±25 %)
DRIFT_POLLS = 6  # a segment this long measures how far its polls stray from its line
DRIFT = 2.0  # they stray this many times the noise: the count drifts (a second difference sees only jitter)
FLAT_RUN = 5  # polls enough to judge a run flat by its own residuals (three degrees of freedom)
WANDER_POLLS = RECENT  # the polls before a recent turn whose scatter is the wander it must stand clear of


@dataclass(frozen=True)
class Segment:
    start: int  # index of the segment's first point in the series given
    noise: float  # the series' noise (a standard deviation, in the series' units)


def noise(values: Sequence[float], cut: int = 0) -> float:
    """The jitter of the series around its local line: robust to the few corners of a sawtooth.

    From the second differences, which a straight stretch cancels and a turn touches in one place only:
    1.4826 x their median absolute deviation / sqrt(6), at least NOISE_FLOOR. With `cut`, those
    across the cliff before values[cut] are left out: a cliff in a short series is no jitter.
    """
    parts = [np.diff(np.asarray(p, dtype=float), n=2) for p in (values[:cut], values[cut:]) if len(p) >= 3]
    if not parts:
        return NOISE_FLOOR
    d2 = np.concatenate(parts)
    mad = _median(np.abs(d2 - _median(d2)))
    return max(MAD_TO_SIGMA * mad / SECOND_DIFF, NOISE_FLOOR)


def _median(a: np.ndarray) -> float:
    """np.median of a short array, by sorting: a tenth of np.median's time on a fleet's hundreds of trends."""
    a = np.sort(a)
    mid = len(a) // 2
    return float(a[mid] if len(a) % 2 else (a[mid - 1] + a[mid]) / 2)


def current_segment(xs: Sequence[float], ys: Sequence[float]) -> Segment:
    """The polls since the last turn: after the newest cliff (last_cliff), walked back (walk_back), the
    stretches before it it does not turn from joined back (rejoin), as are turns that do not stand clear of the
    wander before them (past_wander), from the peak.

    The noise is measured on both sides of the cliff, never across it, and is at least the segment's
    own (own_noise): a calm stretch before it (a smooth climb, polls at 0) is not its jitter. A draining
    segment starts at its peak (drain_start): the polls before it are the level purge had not started on.
    """
    cut, sigma = last_cliff(ys)
    recent = recent_noise(ys[cut:])
    if recent > NEW_JITTER * sigma:  # the jitter of now, not the calm before it
        sigma = recent
    start = cut + walk_back(xs[cut:], ys[cut:], sigma)
    own = own_noise(ys[start:], sigma)
    if own > sigma:  # walked with too small a noise: jitter read as turns
        sigma = own
        start = cut + walk_back(xs[cut:], ys[cut:], sigma)
    start = rejoin(xs, ys, cut, start, sigma)
    reach = stray(xs[start + 1:], ys[start + 1:])
    if reach > DRIFT * sigma and _fit(xs[start:], ys[start:]).direction(sigma) >= 0:  # drifting: walk it wider
        start = rejoin(xs, ys, cut, cut + walk_back(xs[cut:], ys[cut:], reach), reach)
    start = short_climb(xs, ys, cut, past_wander(xs, ys, cut, start, sigma), sigma)
    start = drain_start(xs, ys, climb_start(xs, ys, cut, start, sigma), sigma)
    return Segment(past_wander(xs, ys, cut, start, sigma), sigma)  # a wander's highest poll is no drain's peak


def past_wander(xs: Sequence[float], ys: Sequence[float], cut: int, start: int, sigma: float) -> int:
    """The segment's start once each turn fewer than WANDER_POLLS polls back that does not stand clear of the
    wander before it is joined back (after `cut`), as a hump must stand out of the wander around it
    (history_shape.stands_out).

    A line wandering 300-700 with no trend, smooth from poll to poll, has a noise (its second differences) of
    a few undo logs, and the walk read each of its wobbles as a turn: "Fell from 581 to 443". A turn stands
    clear where the newest poll lies off the band of the WANDER_POLLS polls before it (stands_clear), judged
    by their own scatter: the wander's amplitude, where the walk sees only jitter. A turn further back has a
    segment long enough for its own noise (own_noise), and stays.
    """
    while start > cut and len(ys) - start < WANDER_POLLS:
        if stands_clear(xs, ys, max(start - WANDER_POLLS, cut), start):
            break
        start = cut + walk_back(xs[cut:start], ys[cut:start], sigma)
    return start


def stands_clear(xs: Sequence[float], ys: Sequence[float], lo: int, start: int) -> bool:
    """Whether the newest poll lies off the TURN_SIGMAS band of the polls [lo, start), by their own scatter (at
    least NOISE_FLOOR, as departures judges a flat run): around their mean where their slope is not told from 0
    at SURE (a wander's slope is no line to carry on), else their line's prediction band. True for fewer than
    FLAT_RUN of them: too few to measure a wander by; a climb's jitter is no wander of the flat run before it."""
    fit = _fit(xs[lo:start], ys[lo:start])
    if fit.n < FLAT_RUN:
        return True
    scatter = max(fit.scatter(), NOISE_FLOOR)
    if abs(fit.slope() or 0.0) * fit.spread() ** 0.5 > _t(int(fit.n) - 2) * scatter:
        return fit.off(xs[-1], ys[-1], scatter) != 0
    return abs(ys[-1] - fit.sy / fit.n) > TURN_SIGMAS * scatter * (1 + 1 / fit.n) ** 0.5


def stray(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The polls' scatter around their least-squares line, 0 for fewer than DRIFT_POLLS - 1.

    Where it is over DRIFT times the noise, current_segment walks again with it: a climb 27 either side of
    its line in turn has second differences all +-108, a MAD of 0 and a noise of 1, and was cut as turns.
    It leaves out the segment's first poll: the walk may take a turn's corner in, whose miss is no drift
    (measured over all polls, it put the finding of a doubled rate a poll and a half later). A draining
    segment is left as walked: a drain slows as it empties, and its curve is no drift (widened, the live
    drain test's predicted time came 1.5-1.9 s early in 5 runs of 5).
    """
    return _fit(xs, ys).scatter() if len(ys) >= DRIFT_POLLS - 1 else 0.0


def rejoin(xs: Sequence[float], ys: Sequence[float], cut: int, start: int, sigma: float) -> int:
    """The segment's start once the stretches before it that it does not turn from are joined back (after `cut`).

    The walk judges the older polls by the line of the newest few, which a count drifting poll to poll
    tilts: a climb of 100 a second, its polls ± 27 around one line with a noise of 12.7, was cut after 10 of
    15 polls (audit 3, 2026-11-27). A turn is kept where it shows from the other side too (turned): the
    newest polls leave the line of the stretch before them, where a real turn sends them at once.
    """
    while start > cut:
        before = cut + walk_back(xs[cut:start], ys[cut:start], sigma)
        if turned(_fit(xs[before:start], ys[before:start]), xs[start:], ys[start:], sigma):
            return start
        start = before
    return start


def turned(fit: "_Sums", xs: Sequence[float], ys: Sequence[float], sigma: float) -> bool:
    """Polls off the prediction band of an earlier line: the newest one, or two neighbours on one side."""
    if fit.n < 2:
        return True
    offs = [fit.off(x, y, sigma) for x, y in zip(xs, ys, strict=True)]
    return offs[-1] != 0 or any(a != 0 and a == b for a, b in zip(offs, offs[1:], strict=False))


def recent_noise(ys: Sequence[float]) -> float:
    """The noise of the newest RECENT polls (after the cliff), 0 for fewer: a climb jittering by 3,000 a poll
    after ten calm minutes is no series of turns (audit 2, 2026-11-26: a noise of 80 from the calm minutes
    read a purge-bound climb's wobble as a turn every one or two polls)."""
    return noise(ys[-RECENT:]) if len(ys) >= RECENT else 0.0


def own_noise(ys: Sequence[float], sigma: float) -> float:
    """The noise of a stretch measured on its own polls where it has OWN_POLLS of them, at least `sigma`."""
    return max(noise(ys), sigma) if len(ys) >= OWN_POLLS else sigma


def last_cliff(ys: Sequence[float]) -> tuple[int, float]:
    """The poll at the bottom of the newest cliff (0 when there is none), and the noise on either side of it.

    A cliff's bottom: a poll below CLIFF_SHARE of the poll before it (the top), or of the poll two
    before it when the poll between is no bottom itself, and below the poll before the top too (one
    poll up is a stray), by more than TURN_SIGMAS deviations of the noise on either side of it and of
    the polls next to it (_near_noise), and by CLIFF_MIN at least. A released read view takes 90,047 to 464
    in a poll; a steady drain a few percent of the level a poll; a wander's low end 330, 210, 90, 30 (a quarter
    in two polls, 180 above the bottom) is no read view released ("Fell from 90 to 30").
    """
    y = np.asarray(ys, dtype=float)
    k = np.arange(len(y))
    one = _under(y, 1) & (_under(y, 2) | (k == 1))
    two = _under(y, 2) & (_under(y, 3) | (k == 2)) & ~np.concatenate(([False], one[:-1]))
    # The noise (a median over the series) only where the share allows a cliff: rare, and O(n) each.
    for i in np.flatnonzero(one | two)[::-1]:
        m = 1 if one[i] else 2
        top = y[i - m] if i == m else min(y[i - m], y[i - m - 1])
        if top - y[i] < CLIFF_MIN or top - y[i] <= TURN_SIGMAS * _near_noise(ys, int(i)):  # first: 16 polls
            continue
        sigma = noise(ys, int(i))
        if top - y[i] > TURN_SIGMAS * sigma:
            return int(i), sigma
    return 0, noise(ys)


def _near_noise(ys: Sequence[float], i: int) -> float:
    """The own noise of the OWN_POLLS polls on either side of a cliff's bottom, the larger: a dip to 0 among
    polls jumping by 900 is their jitter, however calm the rest of the series."""
    sides = (ys[max(i - OWN_POLLS, 0):i], ys[i:i + OWN_POLLS])
    return max((noise(side) for side in sides if len(side) >= OWN_POLLS), default=0.0)


def _under(y: np.ndarray, m: int) -> np.ndarray:
    """For each poll: below CLIFF_SHARE of the poll m before it (False for the first m)."""
    out = np.zeros(len(y), dtype=bool)
    out[m:] = y[m:] < CLIFF_SHARE * y[:-m]
    return out


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
    j = fit.join_back(xs, ys, start - 1, sigma)
    while j >= 0:
        off = fit.off(xs[j], ys[j], sigma)
        confirmed = j == 0 or fit.off(xs[j - 1], ys[j - 1], sigma) == off
        way = fit.direction(sigma)
        further = way != 0 and off == -way and (ys[j] - ys[j + 1]) * way < 0
        if confirmed and not further:
            return j + 1
        if confirmed:
            fit.add(xs[j], ys[j])
        j = fit.join_back(xs, ys, j - 1, sigma)
    return 0


def climb_start(xs: Sequence[float], ys: Sequence[float], cut: int, start: int, sigma: float) -> int:
    """The first poll of the climb the segment ends with where a flat run before it was walked in; else `start`.

    The walk's band grows with the climb's scatter (stray, recent_noise), and polls at 0 before a read view
    opened fitted inside it: "growing 19,379 / min since 10:50:26, 17 polls" with 8 of them at ~0, where the
    9 polls from the view on climb 30,170 / min (audit 4, 2026-11-27). The run is judged by its own residuals
    instead (departures): the climb starts at the first poll (from `start`) that leaves, with the poll after it,
    the band of the flat run before it, where the polls from it grow.
    """
    if _fit(xs[start:], ys[start:]).direction(sigma) <= 0:  # no climb: nothing to look for
        return start
    ks = departures(xs, ys, cut, start, sigma)
    k = int(ks[0]) if len(ks) else None
    return start if k is None or _fit(xs[k:], ys[k:]).direction(sigma) <= 0 else k


def short_climb(xs: Sequence[float], ys: Sequence[float], cut: int, start: int, sigma: float) -> int:
    """The first poll, before `start`, of a climb of fewer than OWN_POLLS polls that left a flat run
    (departures) and grows along one line (one_line) to the newest poll; else `start`.

    Too short for its own noise (own_noise), such a climb is walked with the flat run's, and its jitter
    reads as turns: 8 polls at ~0, then 4 to 7 polls climbing ~30,000 / min 15 % under and over their line
    in turn, read "too few polls" (the newest 2 only; audit 4, 2026-11-27). A kink still shows in
    the fit of a line bending at one poll.
    """
    first = len(ys) - OWN_POLLS + 1
    if start <= first:  # a segment this long has no short climb to look for
        return start
    ks = departures(xs, ys, cut, first, sigma)
    for k in map(int, ks[ks < start]):
        if one_line(xs[k:], ys[k:]) and _fit(xs[k:], ys[k:]).direction(sigma) > 0:
            return k
    return start


def one_line(xs: Sequence[float], ys: Sequence[float]) -> bool:
    """At least 4 polls that no line bending at one of them (a hinge) fits better than one straight line, by
    the F test at SURE (F(1, n - 3) is Student's t squared): a rate that changed shows, a jitter does not."""
    n = len(ys)
    if n < 4:
        return False
    x = np.asarray(xs, dtype=float) - xs[0]
    miss = _off_line(x, np.asarray(ys, dtype=float))
    bends = _off_line(x, np.maximum(x - x[1:-1, None], 0.0))  # one hinge a row, at each poll between the ends
    gain = (bends @ miss) ** 2 / np.sum(bends * bends, axis=1)  # what each hinge takes off the straight line's misses
    return bool(np.all(gain * (n - 3) <= _t(n - 3) ** 2 * (miss @ miss - gain)))


def _off_line(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v's residuals from its least-squares line in x (each row's, for rows)."""
    dx, dv = x - x.mean(), v - v.mean(axis=-1, keepdims=True)
    return dv - (dv @ dx / (dx @ dx))[..., None] * dx


def departures(xs: Sequence[float], ys: Sequence[float], cut: int, start: int, sigma: float) -> np.ndarray:
    """The polls k (>= start) above the prediction band of the up to OWN_POLLS polls before it (after `cut`,
    FLAT_RUN at least), with the poll after it, where those polls are flat (_Fits.flat), in order.

    Their band is TURN_SIGMAS x their own scatter (at least NOISE_FLOOR), as walk_back's is of the noise.
    """
    ks = np.arange(max(start, cut + FLAT_RUN), len(ys) - 1)
    if not len(ks):
        return ks
    x, y = np.asarray(xs[cut:], dtype=float) - xs[cut], np.asarray(ys[cut:], dtype=float) - ys[cut]
    run = _fits(x, _prefix(x, y), np.maximum(ks - OWN_POLLS, cut) - cut, ks - cut)
    flat = run.flat(sigma)
    if not flat.any():  # a steady climb or drain has no flat run to leave: no band to test the polls against
        return ks[flat]
    return ks[run.above(x[ks - cut], y[ks - cut]) & run.above(x[ks - cut + 1], y[ks - cut + 1]) & flat]


@dataclass(frozen=True)
class _Fits:
    """Least-squares lines of many stretches at once."""

    n: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray
    vxx: np.ndarray  # the sum of (x - mean x)^2
    span: np.ndarray  # from the first x to the last
    b: np.ndarray
    scatter: np.ndarray  # the points' standard deviation around the line (n - 2 degrees of freedom)

    def flat(self, sigma: float) -> np.ndarray:
        """Lines whose slope is not told from 0 at SURE by Student's t on their own scatter (at least
        NOISE_FLOOR), or that moved no more than FLAT_NOISE x sigma end to end (0, 0, 1, 2, 3 is a steady line)."""
        tq = _t_table(OWN_POLLS)[self.n.astype(int) - 2]
        unsure = np.abs(self.b) * np.sqrt(self.vxx) <= tq * np.maximum(self.scatter, NOISE_FLOOR)
        return unsure | (np.abs(self.b) * self.span <= FLAT_NOISE * sigma)

    def above(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Points above the TURN_SIGMAS prediction band of each line, judged by its own scatter."""
        sigma = np.maximum(self.scatter, NOISE_FLOOR)
        band = TURN_SIGMAS * sigma * np.sqrt(1 + 1 / self.n + (x - self.mean_x) ** 2 / self.vxx)
        return y - (self.mean_y + self.b * (x - self.mean_x)) > band


def _prefix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cumulative sums of 1, x, y, xx, xy, yy, a column of 0 first."""
    rows = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    return np.concatenate([np.zeros((6, 1)), np.cumsum(rows, axis=1)], axis=1)


def _fits(x: np.ndarray, sums: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> _Fits:
    """The lines of the points [lo, hi) of x and _prefix's sums (at least 3 each, distinct xs)."""
    n, sx, sy, sxx, sxy, syy = sums[:, hi] - sums[:, lo]
    vxx, vxy, vyy = sxx - sx * sx / n, sxy - sx * sy / n, syy - sy * sy / n
    b = vxy / vxx
    return _Fits(n, sx / n, sy / n, vxx, x[hi - 1] - x[lo], b, np.sqrt(np.maximum(vyy - b * vxy, 0.0) / (n - 2)))


def drain_start(xs: Sequence[float], ys: Sequence[float], start: int, sigma: float) -> int:
    """A draining segment's peak (its highest poll, the newest of equals); any other segment's `start`.

    Purge may start a few polls after a read view closes: 3,001, 3,001, 3,001, 2,970, 2,856 on the
    suite's MariaDB. Those level polls fitted with the drain's first quartered its pace. A peak more
    than TURN_SIGMAS deviations above the poll before it is a stray (1,069 amid 18-664), no drain's start.
    """
    fit = _fit(xs[start:], ys[start:])
    if fit.n < 2 or fit.direction(sigma) >= 0:
        return start
    top = max(ys[start:])
    peak = max(i for i in range(start, len(ys)) if ys[i] == top)
    return peak if peak == start or top - ys[peak - 1] <= TURN_SIGMAS * sigma else start


class _Sums:
    """Running sums of a least-squares line."""

    def __init__(self) -> None:
        self.n = self.sx = self.sy = self.sxx = self.sxy = self.syy = 0.0
        self.lo, self.hi = float("inf"), float("-inf")

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.sxy += x * y
        self.syy += y * y
        self.lo, self.hi = min(self.lo, x), max(self.hi, x)

    def spread(self) -> float:
        """The sum of (x - mean x)^2."""
        return self.sxx - self.sx * self.sx / self.n if self.n else 0.0

    def scatter(self) -> float:
        """The points' standard deviation around the line, with n - 2 degrees of freedom (0 for fewer than 3)."""
        if self.n < 3:
            return 0.0
        b = self.slope() or 0.0
        return (max(self.syy - self.sy * self.sy / self.n - b * b * self.spread(), 0.0) / (self.n - 2)) ** 0.5

    def slope(self) -> float | None:
        var = self.n * self.sxx - self.sx * self.sx
        return (self.n * self.sxy - self.sx * self.sy) / var if var > 0 else None

    def direction(self, sigma: float) -> int:
        """+1 growing, -1 draining, 0 flat: moved less than FLAT_NOISE noise deviations end to end."""
        b = self.slope() or 0.0
        return 0 if abs(b) * (self.hi - self.lo) <= FLAT_NOISE * sigma else (1 if b > 0 else -1)

    def join_back(self, xs: Sequence[float], ys: Sequence[float], j: int, sigma: float) -> int:
        """add() the points from j back while each lies inside the line's prediction band (off() 0); the index
        of the first that does not, -1 when all joined. One loop on locals with off()'s and add()'s arithmetic,
        in their order: a method call or two a point was most of a fleet's trend time."""
        n, sx, sy, sxx, sxy, syy, lo, hi = self.n, self.sx, self.sy, self.sxx, self.sxy, self.syy, self.lo, self.hi
        width = TURN_SIGMAS * sigma
        while j >= 0:
            x, y = xs[j], ys[j]
            var = n * sxx - sx * sx
            b = ((n * sxy - sx * sy) / var if var > 0 else None) or 0.0
            mean_x = sx / n
            spread = sxx - sx * mean_x
            band = width * (1 + 1 / n + ((x - mean_x) ** 2 / spread if spread > 0 else 0)) ** 0.5
            if abs(y - (sy / n - b * mean_x + b * x)) > band:
                break
            n, sx, sy, sxx, sxy, syy = n + 1, sx + x, sy + y, sxx + x * x, sxy + x * y, syy + y * y
            lo, hi = x if x < lo else lo, x if x > hi else hi  # min() and max(), without their calls
            j -= 1
        self.n, self.sx, self.sy, self.sxx, self.sxy, self.syy, self.lo, self.hi = n, sx, sy, sxx, sxy, syy, lo, hi
        return j

    def off(self, x: float, y: float, sigma: float) -> int:
        """+1 above the line's prediction band at x, -1 below it, 0 inside it."""
        b = self.slope() or 0.0
        mean_x = self.sx / self.n
        a = self.sy / self.n - b * mean_x
        spread = self.sxx - self.sx * mean_x
        band = TURN_SIGMAS * sigma * (1 + 1 / self.n + ((x - mean_x) ** 2 / spread if spread > 0 else 0)) ** 0.5
        miss = y - (a + b * x)
        return 0 if abs(miss) <= band else (1 if miss > 0 else -1)


@dataclass(frozen=True)
class Line:
    """The least-squares line through a segment's points, and how far its slope is from 0."""

    slope: float | None  # None for fewer than two distinct xs
    scatter: float  # the points' standard deviation around it (n - 2 degrees of freedom; 0 for fewer than 3)
    significant: bool  # the slope is told from 0 against that scatter and the noise


def line(xs: Sequence[float], ys: Sequence[float], sigma: float) -> Line:
    """The segment's line, its slope told from 0 at SURE by two tests, both needed.

    Student's t on the points' own scatter (n - 2 degrees of freedom: three polls that happen to
    line up prove little), and the normal's on the noise sigma, measured on more polls: polls
    jumping by 900 around a level never make a trend of their slope.
    """
    fit = _fit(xs, ys)
    b, scatter = fit.slope(), fit.scatter()
    if b is None or fit.n < 3:
        return Line(b, scatter, False)
    moved = abs(b) * fit.spread() ** 0.5  # the slope over its standard error, times the deviation
    return Line(b, scatter, moved > _t(int(fit.n) - 2) * scatter and moved > _t(0) * sigma)


@cache
def _t(df: int) -> float:
    """The SURE quantile of Student's t with df degrees of freedom; of the normal for 0."""
    return t_quantile(SURE, df) if df else NORMAL_SURE


NORMAL_SURE = 1.959964  # the normal's 0.975 quantile


@cache
def _t_table(n: int) -> np.ndarray:
    """_t(df) for df 0 to n - 2, by df: the quantiles of the fits of at most n points."""
    return np.array([_t(df) for df in range(n - 1)])


def _fit(xs: Sequence[float], ys: Sequence[float]) -> "_Sums":
    """The running sums of all the points at once, each in one pass in C and in add()'s order: add() a point
    at a time was most of a fleet's trend time."""
    if len(xs) != len(ys):
        raise ValueError("xs and ys differ in length")
    fit = _Sums()
    if len(xs):
        fit.n = float(len(xs))
        fit.sx, fit.sy = sum(xs, 0.0), sum(ys, 0.0)
        fit.sxx, fit.sxy, fit.syy = (sum(map(mul, a, b), 0.0) for a, b in ((xs, xs), (xs, ys), (ys, ys)))
        fit.lo, fit.hi = min(xs), max(xs)
    return fit
