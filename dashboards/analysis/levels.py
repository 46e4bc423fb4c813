"""TPS's levels: where a line steps from one flat level to another (a workload or setting changed), found by
binary segmentation and judged against a straight line, with the stalls between two levels told apart.

Pure functions over (times, values); docs/dashboards.md ("Stability verdict", level change) defines them.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

import numpy as np

from dashboards.analysis.points import seconds_of
from dashboards.analysis.segment import MAD_TO_SIGMA
from dashboards.analysis.stability import DEFAULT_DIP_FRACTION, MIN_DIP_COUNT
from store import breaks

# A level change (a workload or setting changed): TPS's two levels differ by at least SHIFT_MIN of the mean, and
# two flat levels leave at most SHIFT_FIT of a straight line's squared residuals, each level SHIFT_SIDE polls
# (and a tenth of the range, but at its two ends) at least. A ramp fits a line better than two levels; a step,
# the other way round.
SHIFT_MIN = 0.10
SHIFT_FIT = 0.5
STEP_F = 35.0  # or two levels beat a line by this F of their own noise (stands_out)
LEVEL_FLOOR = 0.001  # a level's variance is at least (0.1 % of its mean) squared
VARIANCE_POLLS = 10  # stands_out weighs by a level's own variance only where it has this many polls to tell it
SHIFT_SIDE = 5
MAX_LEVELS = 5  # a range is read as at most this many levels (four changes)
STALL_SHARE = 0.1  # a level under this share of the levels on both sides of it is their stall, no level of its own
CATCH_UP_SIGMAS = 4.0  # a poll right after a stall this many robust deviations over the level before it caught up


@dataclass(frozen=True)
class Shift:
    """TPS moved from one level to another: a workload or setting changed, not a drift."""

    at: datetime  # the first poll of the new level
    before: float  # mean TPS of the polls before it
    after: float  # ... and from it on

    @property
    def pct(self) -> float:
        return (self.after - self.before) / self.before * 100 if self.before else float("inf")


@dataclass(frozen=True)
class Levels:
    """TPS's level changes, and the stalls between two levels left out of them."""

    shifts: tuple[Shift, ...] = ()
    stalls: tuple[tuple[datetime, datetime], ...] = ()  # the first and the last poll of each, in time order


def levels_of(ts: Sequence[datetime], values: Sequence[float] | np.ndarray) -> Levels:
    """level_shifts(), with the stalls it left out as runs of polls."""
    shifts, stalled = shifts_and_stalls(ts, np.asarray(values, dtype=float))
    edges = np.flatnonzero(np.diff(np.concatenate([[0], stalled.astype(np.int8), [0]])))
    return Levels(shifts, tuple((ts[lo], ts[hi - 1]) for lo, hi in zip(edges[::2], edges[1::2], strict=True)))


def level_shifts(ts: Sequence[datetime], values: Sequence[float] | np.ndarray) -> tuple[Shift, ...]:
    """The level changes of the polls (shifts_and_stalls)."""
    return shifts_and_stalls(ts, np.asarray(values, dtype=float))[0]


def shifts_and_stalls(ts: Sequence[datetime], y: np.ndarray,
                      x: np.ndarray | None = None) -> tuple[tuple[Shift, ...], np.ndarray]:
    """The level changes of the polls, at most MAX_LEVELS levels of SHIFT_SIDE polls (and a tenth of the range,
    but at its ends: edge_least) at least, each change judged against the two levels it parts (step_fit); and
    which polls are stalls (stalls_of), left out of the levels.

    Binary segmentation: the level whose best split (best_split) lowers the squared residuals most is split,
    until MAX_LEVELS; then the change that fails step_fit() over its two neighbouring levels worst is dropped,
    and the rest judged again, until all pass. A split need not pass when it is made: in 30 -> 90 -> 30 the
    first one's sides (30 and 60) leave 3/4 of a line's squares, the two changes none; 6 polls at 70 amid 100s
    split off the whole range leave sides under SHIFT_MIN apart. A ramp's splits each leave more than a line
    over their two levels, and go; noise's are less than SHIFT_MIN apart.

    x: the polls' times in seconds (holes_shut(ts)), with the stalls left out closed up (closed_up)."""
    side = max(SHIFT_SIDE, len(y) // 10)
    if len(y) < 2 * side or not y.mean():
        return (), np.zeros(len(y), bool)
    x = holes_shut(ts) if x is None else x
    short = short_stalls(y, side) | lone_stalls(y, x, side)
    if short.any():  # too short to be a level: found first, or its polls join a level and hide it and the changes
        return left_out(ts, x, y, short, catch_ups(y, short, side))
    order = segmented_order(y, side)
    found = sorted(order)
    splits = most_passing(x, y, order)
    # A stall is looked for among the levels found as well as those passing: an uneven recovery after it (one
    # poll back at the old level, one low, then a new level) leaves the level after the stall more than half a
    # line's squares, so the stall's end is dropped and its 0s merge into the new level.
    stalled = stalls_of(y, found) | stalls_of(y, splits)
    if stalled.any():  # the levels as if the stalls' polls had not been read: the dips tell the stalls
        return left_out(ts, x, y, stalled)
    means = level_means(y, splits)
    return tuple(Shift(ts[at], a, b) for at, (a, b) in zip(splits, pairwise(means), strict=True)), stalled


def level_means(y: np.ndarray, splits: Sequence[int]) -> list[float]:
    """Each level's mean, an edge poll that caught the change mid-poll (straddles) left out: such a poll counted
    part of each load. A low level of 360 TPS read 442.1 with its last poll, 1,423.8, counted in it."""
    bounds = [0, *splits, len(y)]
    levels = [y[lo:hi] for lo, hi in pairwise(bounds)]
    medians = [float(np.median(level)) for level in levels]
    means = []
    for k, level in enumerate(levels):
        keep = np.ones(len(level), bool)
        if k and straddles(level, 0, medians[k - 1]):
            keep[0] = False
        if k < len(levels) - 1 and straddles(level, -1, medians[k + 1]):
            keep[-1] = False
        means.append(float(level[keep].mean()))
    return means


STRADDLE = 0.25  # an edge poll this share of the way to the next level or more caught the change mid-poll ...
STRADDLE_SIGMAS = 3.0  # ... when it lies this many standard deviations of its level's other polls off their median


def straddles(level: np.ndarray, edge: int, other: float) -> bool:
    """Whether the level's edge poll (0 or -1) lies between its level and the neighbouring one (`other`: that
    level's median), STRADDLE of the way at least and STRADDLE_SIGMAS standard deviations of the level's other
    polls (LEVEL_FLOOR of their mean at least) off their median: no poll of the level's own noise or sub-level."""
    rest = level[1:] if edge == 0 else level[:-1]
    if len(rest) < 2:
        return False
    median = float(np.median(rest))
    poll, step = float(level[edge]), other - median
    sigma = max(float(rest.std()), LEVEL_FLOOR * abs(float(rest.mean())))
    return bool(step) and STRADDLE <= (poll - median) / step < 1 and abs(poll - median) > STRADDLE_SIGMAS * sigma


def left_out(ts: Sequence[datetime], x: np.ndarray, y: np.ndarray, out: np.ndarray,
             caught: np.ndarray | None = None) -> tuple[tuple[Shift, ...], np.ndarray]:
    """shifts_and_stalls() of the polls not `out` (stalls) nor `caught` (their catch-ups: catch_ups), as if those
    had not been read; which polls are stalls: `out` and those found then."""
    gone = out if caught is None else out | caught
    kept = ~gone
    shifts, more = shifts_and_stalls([t for t, k in zip(ts, kept, strict=True) if k], y[kept],
                                     closed_up(x, gone)[kept])
    stalled = out.copy()
    stalled[kept] = more
    return shifts, stalled


def closed_up(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The times x with each run of `out` polls taken out: the polls after it move back by its length, the
    first of them to where the run began. A straight line fitted across a stall's gap runs through the levels
    on both sides and fits them as well as two levels do: 354 x 11, 0 x 39, 150 x 12 and 0 x 28 polls (the
    load's changes caught mid-poll) read one level of 354 and 150 together, 246.2, before it stalled."""
    if not len(x):
        return x
    edges = np.flatnonzero(np.diff(np.concatenate([[0], out.astype(np.int8), [0]])))
    by = np.zeros(len(x) - 1)
    for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        if hi < len(x):
            by[hi - 1] = x[hi] - x[lo]
    return shortened(x, by)


def shortened(x: np.ndarray, by: np.ndarray) -> np.ndarray:
    """The times x with each step from one poll to the next shortened by `by` (one a step, 0 where it stays):
    every poll moves back by the shortening of the steps before it."""
    return x - np.concatenate([[0.0], np.cumsum(by)])


def holes_shut(ts: Sequence[datetime]) -> np.ndarray:
    """seconds_of(ts) with each hole (store.breaks.cuts: a step over GAP_FACTOR usual intervals, the polls of an
    outage missing) shortened to the usual interval there: the polls after it move back as after a stall left
    out (closed_up). 354 TPS, 39 polls missing, then 150 TPS read one level of both, 248.2, before the range
    ended stalled: a line across the outage's 6.5 minutes fitted the two loads as well as two levels."""
    x = seconds_of(ts)
    hole = breaks.cuts(x)
    if not hole.any():
        return x
    return shortened(x, np.where(hole, np.diff(x) - breaks.local_steps(x), 0.0))


def short_stalls(y: np.ndarray, side: int) -> np.ndarray:
    """The polls of each run of 2 to side - 1 polls inside the range that stays under STALL_SHARE of the median
    of the `side` polls on both sides of it: a stall (a lock held for 30 s), too short to be a level of its own
    for stalls_of(). A single low poll is a blip the levels' means bear. At the range's end, a run of 2 to
    SHIFT_SIDE - 1 polls, too short for a level even there, under STALL_SHARE of the `side` polls before it: 4 polls
    at 0 ending the range joined the last polls in a level (100 x 40, 200 x 40 and 0 x 4 read 100 -> 199.9 -> 40.4,
    a level of one poll at 202 and the 0s); a longer one is a level, which the words say is a stall still going or
    a load that stopped. So at its start, under STALL_SHARE of the `side` polls after it: a run's 3 polls at 0 after
    its warm-up joined its first level (0 x 3, 120 x 40 and 300 x 40 read "TPS from 111.6 to 300.0")."""
    low = y < STALL_SHARE * y.max()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], low.astype(np.int8), [0]])))
    lo, hi = edges[::2], edges[1::2]
    runs = (hi - lo >= 2) & (hi - lo < np.where((lo == 0) | (hi == len(y)), SHIFT_SIDE, side))  # no blip nor level
    lo, hi = lo[runs], hi[runs]
    before, after = window_medians(y, lo - side, side), window_medians(y, hi, side)
    out = np.zeros(len(y), bool)
    around = np.fmin(before, after)  # a run at an edge has polls on one side only
    for a, b, m in zip(lo.tolist(), hi.tolist(), around.tolist(), strict=True):
        if float(y[a:b].mean()) < STALL_SHARE * m:
            out[a:b] = True
    return out


def lone_stalls(y: np.ndarray, x: np.ndarray, side: int) -> np.ndarray:
    """Each single poll inside the range under STALL_SHARE of the median of the `side` polls on both sides of it:
    TPS stopped for about that poll's interval (a lock held a poll long), as the dips verdict reads it (stopped).
    Left in, with its catch-up after it, it hid two level changes: 90, 40, then 100 TPS with 8-15 s locks every
    35-110 s across 5 s polls left 0.82 and 0.79 of a line's squares, and the 40s read as a 55 s dip. Not where
    its interval (x: the polls' seconds) holds fewer than MIN_DIP_COUNT transactions at the dip threshold's rate,
    as find_dips judges a dip: at 0.4 TPS across 5 s polls one in seven counts none by chance.
    Its neighbours are judged by that median too, not by the range's highest poll: a catch-up after a stall (304
    TPS amid 100) made a lock's first poll, 28.3 of its interval's work, a stall's as well, and the two, at 14.2
    on average, neither stall alone."""
    low = y < STALL_SHARE * y.max()
    at = np.flatnonzero(low[1:-1]) + 1
    out = np.zeros(len(y), bool)
    if not len(at):
        return out
    around = np.minimum(window_medians(y, at - side, side), window_medians(y, at + 1, side))
    bound = STALL_SHARE * around
    expected = DEFAULT_DIP_FRACTION * around * (x[at] - x[at - 1])
    out[at] = (y[at] < bound) & (bound <= np.minimum(y[at - 1], y[at + 1])) & (expected >= MIN_DIP_COUNT)
    return out


def catch_ups(y: np.ndarray, stalled: np.ndarray, side: int) -> np.ndarray:
    """The polls right after each run of `stalled` polls, fewer than SHIFT_SIDE in a row (more are a level), over
    the median of the `side` polls before it by CATCH_UP_SIGMAS robust deviations of theirs (MAD_TO_SIGMA x their
    median absolute deviation, LEVEL_FLOOR of the median at least): the work the stall held back, done at once by a
    queueing or rate-limited load, with the poll the stall ended in where one under that median comes first. No
    level's noise: 201 and 299 TPS after stalls of a level of 90 outweighed the step to 40 in the squares."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], stalled.astype(np.int8), [0]])))
    out = np.zeros(len(y), bool)
    for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        before = y[max(lo - side, 0):lo][~stalled[max(lo - side, 0):lo]]
        if len(before) < 2:
            continue
        median = median_of(before)
        spread = max(MAD_TO_SIGMA * median_of(np.abs(before - median)), LEVEL_FLOOR * median)
        tail = hi + int(hi < len(y) and not stalled[hi] and y[hi] < median)  # the poll the stall ended in
        end = tail
        while end < len(y) and not stalled[end] and y[end] > median + CATCH_UP_SIGMAS * spread:
            end += 1
        if tail < end < len(y) and end - tail < SHIFT_SIDE:
            out[hi:end] = True
    return out


def window_medians(y: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """The median of each y[lo:lo + width], cut to y's edges (NaN where that holds no poll or a NaN, as np.median):
    each start once, the whole windows partitioned in place in one numpy call (a week's line asks some 40 for each
    of the levels' five passes, many of them the same: np.median copied and checked each window again)."""
    out = np.full(len(lo), np.nan)
    if not len(lo) or not len(y):
        return out
    starts, back = np.unique(lo, return_inverse=True)
    a, b = np.clip(starts, 0, len(y)), np.minimum(starts + width, len(y))
    found = np.full(len(starts), np.nan)
    whole = b - a == width
    if whole.any():
        windows = np.lib.stride_tricks.sliding_window_view(y, width)[a[whole]]  # a copy: partitioned in place
        half = width // 2
        if width % 2:
            windows.partition(half, axis=1)
            found[whole] = windows[:, half]
        else:
            windows.partition((half - 1, half), axis=1)
            found[whole] = (windows[:, half - 1] + windows[:, half]) / 2  # np.median's mean of the two
    for k in np.flatnonzero(~whole & (b > a)).tolist():  # cut by an edge
        found[k] = median_of(y[a[k]:b[k]])
    nans = np.concatenate([[0], np.cumsum(np.isnan(y))])
    found[(b > a) & (nans[np.maximum(b, a)] > nans[a])] = np.nan  # partition() moves a NaN last; np.median says NaN
    out[:] = found[back.ravel()]
    return out


def median_of(polls: np.ndarray) -> float:
    """np.median of a few polls (NaN where one is NaN, which sorts last), by one sort: np.median's checks cost more
    than the sort, and the stalls of a week's line ask it thousands of times."""
    s = np.sort(polls)
    mid = len(s) // 2
    return float(s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2) if len(s) and s[-1] == s[-1] else float("nan")


def passing(x: np.ndarray, y: np.ndarray, splits: list[int],
            fits_of: dict[tuple[int, int, int], float] | None = None) -> list[int]:
    """The splits less, one at a time, the one that fails step_fit() over its two neighbouring levels worst.
    fits_of: step_fit() of each (lo, at, hi) already judged over these polls; a drop changes only its neighbours'
    levels, and most_passing() judges the same changes again for each coarser segmentation."""
    splits = list(splits)
    known = {} if fits_of is None else fits_of
    while splits:
        bounds = [0, *splits, len(y)]
        fits = []
        for lo, at, hi in zip(bounds, bounds[1:], bounds[2:], strict=False):
            if (lo, at, hi) not in known:
                known[lo, at, hi] = step_fit(x[lo:hi], y[lo:hi], at - lo)
            fits.append(known[lo, at, hi])
        worst = int(np.argmax(fits))
        if fits[worst] <= SHIFT_FIT:
            break
        del splits[worst]
    return splits


def stalls_of(y: np.ndarray, splits: list[int]) -> np.ndarray:
    """The polls of each level between two others that stays under STALL_SHARE of both: TPS stopped and came back
    (a lock held for minutes), a stall, not two changes of the load; the levels around it may differ."""
    bounds = [0, *splits, len(y)]
    means = [float(y[lo:hi].mean()) for lo, hi in pairwise(bounds)]
    idle = [not np.median(y[lo:hi]) for lo, hi in pairwise(bounds)]  # most of its polls counted nothing: no load
    out = np.zeros(len(y), bool)
    for k in range(1, len(means) - 1):
        if idle[k - 1] or idle[k + 1]:  # nothing ran on that side for TPS to stop from
            continue
        bound = STALL_SHARE * min(means[k - 1], means[k + 1])
        level = y[bounds[k]:bounds[k + 1]]
        if means[k] < bound:
            out[bounds[k]:bounds[k + 1]] = True
        elif float(np.median(level)) < bound:  # the stall's level took in polls of the load around it: those stay
            out[bounds[k]:bounds[k + 1]] = level < bound
    return out


def most_passing(x: np.ndarray, y: np.ndarray, order: Sequence[int]) -> list[int]:
    """passing() of the segmentation's splits, or of its first ones (a coarser segmentation, fewer levels) where
    that keeps more changes: splits made inside a change of several polls each fail against levels mixed by the
    others, and dropping them one at a time never tries the coarse split alone (a load cut to a fifth over 6
    polls read "Drifting" where its first split passed alone; testing/level_change_heavy_writer.py)."""
    fits_of: dict[tuple[int, int, int], float] = {}
    best = passing(x, y, sorted(order), fits_of)
    for k in range(len(order) - 1, len(best), -1):
        kept = passing(x, y, sorted(order[:k]), fits_of)
        if len(kept) > len(best):
            best = kept
    return best


def segmented(y: np.ndarray, side: int) -> list[int]:
    """Binary segmentation's splits (the first poll of each new level), in order: up to MAX_LEVELS levels."""
    return sorted(segmented_order(y, side))


def segmented_order(y: np.ndarray, side: int) -> list[int]:
    """segmented()'s splits in the order they were made: its first k are the segmentation into k + 1 levels."""
    parts = [(0, len(y))]
    splits: list[int] = []
    while len(parts) < MAX_LEVELS:
        found = [(_gain(y[lo:hi], at), lo, hi, at) for lo, hi in parts
                 if (at := best_split(y[lo:hi], edge_least(lo, hi, len(y), side))) is not None]
        if not found:
            break
        _, lo, hi, at = max(found)
        parts[parts.index((lo, hi)):parts.index((lo, hi)) + 1] = [(lo, lo + at), (lo + at, hi)]
        splits.append(lo + at)
    return splits


def edge_least(lo: int, hi: int, n: int, side: int) -> tuple[int, int]:
    """The fewest polls of the old and the new level when polls lo to hi of n are split: `side`, or SHIFT_SIDE
    for a level at the range's start or end. The range may cut a level short (the load changed a minute after
    it began); step_fit() still judges it against a line over its whole neighbour, so noise at an edge, which
    lowers a line's squares about as much as two levels', gives no change."""
    return SHIFT_SIDE if lo == 0 else side, SHIFT_SIDE if hi == n else side


def best_split(y: np.ndarray, least: tuple[int, int]) -> int | None:
    """The split of y into two flat levels (of least[0] and least[1] polls at least) with the least squared
    residuals: the first poll of the second level; None where y is too short to split."""
    n = len(y)
    if n < sum(least):
        return None
    sums, squares = np.cumsum(y), np.cumsum(y * y)
    k = np.arange(least[0], n - least[1] + 1)  # polls on the old level
    left, right = sums[k - 1], sums[-1] - sums[k - 1]
    rss = squares[-1] - left * left / k - right * right / (n - k)
    return int(k[int(np.argmin(rss))])


def _gain(y: np.ndarray, at: int) -> float:
    """How much splitting y at `at` lowers its squared residuals."""
    return float(((y - y.mean()) ** 2).sum()) - _levels_rss(y[:at], y[at:])


def _levels_rss(before: np.ndarray, after: np.ndarray) -> float:
    """The squared residuals of two flat levels, each about its own mean."""
    return float(((before - before.mean()) ** 2).sum() + ((after - after.mean()) ** 2).sum())


def step_fit(x: np.ndarray, y: np.ndarray, at: int) -> float:
    """The share of a straight line's squared residuals that two flat levels split at `at` leave (0 where the
    step stands out of its levels' own noise: stands_out); inf where the levels differ by less than SHIFT_MIN
    of the mean (no level change, however well they fit)."""
    before, after = y[:at], y[at:]
    if not apart(before, after):
        return float("inf")
    rss = _levels_rss(before, after)
    line = np.polyval(np.polyfit(x - x[0], y, 1), x - x[0])
    line_rss = float(((y - line) ** 2).sum())
    share = rss / line_rss if line_rss else (0.0 if not rss else float("inf"))
    return 0.0 if share > SHIFT_FIT and stands_out(x, y, at) else share


def stands_out(x: np.ndarray, y: np.ndarray, at: int) -> bool:
    """Whether two levels fit better than a line by STEP_F of their own noise, each poll weighed by its level's
    variance (the line fitted so): F = (line's - levels' weighted squares) / (levels' / (n - 2)).

    A noisy level hides a flat one's misfit to a line from the plain squares: sysbench raised from 1 to 6
    threads on 2 cores went from 65 TPS +/- 9 to 130 TPS +/- 27 and back to 68 +/- 15; each change left 0.87 and
    0.58 of a line's squares ("Noisy: CV 40.9 %"), weighted F 44 and 42. Best splits of flat noise or of noisy
    ramps (20 to 200 polls, CV 5 to 30 %, 5,400 seeded draws) never reached STEP_F where SHIFT_FIT alone failed."""
    before, after = y[:at], y[at:]
    if min(len(before), len(after)) < VARIANCE_POLLS:  # 5 polls of 90 opening 90/110 swings: no variance to tell
        return False
    w = np.concatenate([np.full(len(before), 1 / _variance(before)), np.full(len(after), 1 / _variance(after))])
    levels = np.concatenate([np.full(len(before), before.mean()), np.full(len(after), after.mean())])
    rss = float((w * (y - levels) ** 2).sum())
    line = np.polyval(np.polyfit(x - x[0], y, 1, w=np.sqrt(w)), x - x[0])
    line_rss = float((w * (y - line) ** 2).sum())
    return rss > 0 and (line_rss - rss) / (rss / (len(y) - 2)) >= STEP_F


def _variance(level: np.ndarray) -> float:
    """A level's variance about its mean, at least (LEVEL_FLOOR x its mean) squared: polls of one constant value
    have none to weigh by."""
    return max(float(level.var()), (LEVEL_FLOOR * float(level.mean())) ** 2, 1e-12)


def apart(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether two levels differ by SHIFT_MIN of their polls' mean at least (and at all: two levels of 0 do not)."""
    step = abs(float(after.mean()) - float(before.mean()))
    return step > 0 and step >= SHIFT_MIN * float(np.concatenate([before, after]).mean())
