"""How stable a TPS line is, as an engineer would say it: the warm-up's end, then steady, periodic dips, level
changes or drift.

Pure functions over (times, values) with None at holes; docs/dashboards.md ("Stability verdict") defines each.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import pairwise

import numpy as np

from dashboards.analysis.history_shape import Holder, Hump, Rise, named, open_rise, shape
from dashboards.analysis.idle import Burst, idle_bursts
from dashboards.analysis.levels import SHIFT_SIDE, STALL_SHARE, Shift, levels_of
from dashboards.analysis.points import ChartPoints, first_began, seconds_of, unix_seconds, with_edge_holes
from dashboards.analysis.segment import MAD_TO_SIGMA, OWN_POLLS
from dashboards.analysis.stability import (
    DEFAULT_DIP_FRACTION,
    Dip,
    Threshold,
    find_dips,
    level_thresholds,
    with_outages,
)

MIN_POINTS = 10  # fewer polls than this after the warm-up give no verdict
MIN_DIPS = 3  # periodic: at least this many dips
PERIOD_SPREAD = 0.1  # ... whose starts lie within this fraction of the period of a regular grid
GRID_COVER = 0.8  # ... and fill at least this fraction of the grid's slots from the first to the last
GAP_SPREAD = 0.25  # ... and this share of the gaps between the stalls lie within this fraction of the period of
# a whole number of periods
BRIEF = 1.5  # a dip no longer than this many poll intervals (one low poll) is a blip, not a stall
EDGE_COMMITS = 1.5  # transactions: a poll that counted fewer stopped for its whole interval (one may cross its edge)
STOP_SECONDS = 2.0  # a one-poll dip under STALL_SHARE of its level that lost this long of its work is a stall
DRIFT_MIN = 0.05  # drifting: the fitted line moves at least this fraction of the mean over the range
NOISY_CV = 0.25  # with no trend, level change or stall, TPS this unsteady from poll to poll is noisy, not steady
CORRELATED = 0.5  # a wait moves with the dips when its correlation with TPS is this negative or more
SHIFT_FLAT = 0.25  # a first level is flat when its fitted line moves less than this share of the step
GREW = 2.0  # a wait grew in the dips when its mean rate in their polls is this many times that between them ...
GREW_MIN = 0.05e12  # ... and higher by this much at least (ps waited a second: a twentieth of a session's time)
MAX_DIP_WAITS = 3  # the waits that grew most in the dips, named


@dataclass(frozen=True)
class Drift:
    pct_per_min: float  # the slope as % of the mean a minute (for the history length: units a minute)
    low: float  # its 95 % interval, same units
    high: float

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class DipWait:
    """A wait's mean rate (ps waited a second) over the dips' polls and over the other polls judged."""

    name: str
    inside: float
    between: float


@dataclass(frozen=True)
class Sag:
    """A dip of two polls or more besides the stalls judged that did not stop TPS: its lowest poll, as a share of
    its level's median, is no stall's (a loaded host's sag, a slower stretch)."""

    start: datetime
    end: datetime
    polls: int  # its low polls: the dip's length in poll intervals
    pct: float  # its lowest poll, % of its level's median


@dataclass(frozen=True)
class MovingWait:
    """A wait line that moves against TPS: its correlation with TPS (None: under CORRELATED), and its rates in the
    verdict's dips and between them where it grew in them (dips_compared; None: it did not)."""

    name: str
    r: float | None
    grew: DipWait | None = None


@dataclass(frozen=True)
class Verdict:
    kind: str  # "steady", "noisy", "idle", "periodic", "shifted", "drifting", "dips" (irregular), or "" (too few polls)
    warmup_end: datetime | None  # the first poll judged: the warm-up (found, or given) ends there
    points: int  # polls judged (after the warm-up)
    cv: float | None  # of the polls judged
    period: float | None = None  # s, periodic dips
    dips: tuple[Dip, ...] = ()  # periodic: the recurring ones; else every dip
    dip_seconds: float | None = None  # median dip length
    other_dips: int = 0  # one-poll blips besides the dips judged (a loaded host's, not stalls)
    sags: tuple[Sag, ...] = ()  # periodic: the longer dips besides them that did not stop TPS
    off_period: tuple[Dip, ...] = ()  # periodic: the stalls that stopped TPS off its grid (said apart from the blips)
    drift: Drift | None = None  # TPS's slope, when it drifts
    waits: tuple[tuple[str, float], ...] = ()  # (wait, correlation with TPS), most negative first
    history: Drift | None = None  # the history length's slope (undo logs a minute), when it grows or drains
    humps: tuple[Hump, ...] = ()  # the history length's rises that fell back (read views held, then released)
    history_since: datetime | None = None  # where `history` is fitted from: after the last hump
    rising: Rise | None = None  # the history length's rise at the end, not fallen back yet (left out of `history`)
    warmup_polls: int = 0  # polls left out before warmup_end
    shifts: tuple[Shift, ...] = ()  # TPS's level changes, in time order
    stalls: tuple[tuple[datetime, datetime], ...] = ()  # shifted: first and last poll of each stall left out
    last_poll: datetime | None = None  # the last poll judged: a stall ending there ends the range
    warmup_stall: tuple[datetime, datetime] | None = None  # first and last poll of a stall the warm-up ran past
    dip_levels: tuple[datetime, ...] = ()  # the first poll of each later level whose dips were judged on their own
    # periodic or irregular dips: TPS's mean over the dips' polls and over the others judged, and the waits that grew
    # in them (dips_compared); a level change's or a drift's stalls: those waits only
    dip_tps: tuple[float, float] | None = None
    dip_waits: tuple[DipWait, ...] = ()
    idle_polls: int = 0  # idle: the polls that counted next to no transactions (idle.idle_bursts) ...
    bursts: tuple[Burst, ...] = ()  # ... and the runs of the others

    @property
    def shift(self) -> Shift | None:
        """The first level change (the only one, mostly)."""
        return self.shifts[0] if self.shifts else None


RAMP_SHARE = 3  # the warm-up found is at most a third of the polls
RAMP_BAND = 2.0  # a warm-up poll lies more than this many standard deviations below the steady mean


def warmup_end(values: Sequence[float]) -> int:
    return warmup_cut(values)[0]


def warmup_cut(values: Sequence[float]) -> tuple[int, int | None]:
    """The index the steady part starts at: the leading polls below the steady part's lower band; and, where
    the warm-up ran on past a stall, the index of the stall's first poll (None: it ran past none).

    The steady part is the polls after the first third, its dips (below DEFAULT_DIP_FRACTION of their
    median: a stall is no level) and its bursts (a catch-up after one) left out; its lower band is its mean -
    RAMP_BAND population standard deviations. The warm-up is the polls from the first one on that lie below that
    band, at most a third of them: a ramp is cut, while a noisy line drifting up on a busy host has its third poll
    inside the band.
    A warm-up that ends inside a stall (polls under those dips' bound), or too few polls for a level before one,
    runs on to the stall's end (past_stall).
    """
    cap = len(values) // RAMP_SHARE
    rest = np.asarray(values[cap:], dtype=float)
    low = float(np.median(rest)) * DEFAULT_DIP_FRACTION if len(rest) else 0.0
    rest = rest[rest >= low]
    rest = rest[~bursts(rest)]
    if not cap or len(rest) < 2:
        return 0, None
    band = float(rest.mean() - RAMP_BAND * rest.std())
    cut = next((i for i in range(cap) if values[i] >= band), cap)
    return past_stall(values, cut, low) if cut else (0, None)


BURST_SIGMAS = 4.0  # a catch-up poll lies more than this many robust deviations above the steady part's median


def bursts(rest: np.ndarray) -> np.ndarray:
    """The polls of each run of fewer than SHIFT_SIDE (too few for a level) above the median by BURST_SIGMAS robust
    deviations (segment.MAD_TO_SIGMA x the median absolute deviation) at least: a rate-limited load catching up
    after a stall. Their spread is no level's: sysbench --rate 200 after a stall of 5 polls ran 1,000 for 3, and
    the band, 2 deviations under the mean, fell under 0: no warm-up was cut, and its ramp was listed as a dip."""
    median = float(np.median(rest)) if len(rest) else 0.0
    spread = MAD_TO_SIGMA * float(np.median(np.abs(rest - median))) if len(rest) else 0.0
    high = rest > median + BURST_SIGMAS * spread
    edges = np.flatnonzero(np.diff(np.concatenate([[0], high.astype(np.int8), [0]])))
    out = np.zeros(len(rest), bool)
    for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        out[lo:hi] = hi - lo < SHIFT_SIDE
    return out


def past_stall(values: Sequence[float], cut: int, low: float) -> tuple[int, int | None]:
    """Where a warm-up cut at `cut` ends: past the stall (polls under `low`) that poll is in, or that starts (two
    polls under `low` or more) fewer than SHIFT_SIDE polls after it, a level's least; else `cut`, and `cut` where
    the stall lasts to the end; and the stall's first poll (None where the cut stays).

    A ramp that never reached the band in its first third, then stalled across the third's end, left the stall's
    first polls judged: 6 x i TPS for 30 polls, 0 x 5, then 180 and 188 in turn read "Level change: TPS from
    0.0 to 184.0", the warm-up cut at the first 0. One that reached it a poll before stalling left that poll a level
    with the stall's 0s: 7 x i TPS for 27 polls, 0 x 8, then the same read "TPS from 20.2 to 184.0". Only a run
    whose warm-up ends in or just before a stall is cut longer. A stall is where TPS fell (its first poll under
    DEFAULT_DIP_FRACTION of the highest before it), not a ramp or a lower level near `low`: i x i TPS for 60 polls,
    still under `low` at the third, was cut at 28 (the first poll at or above 780.25), not the third, 20."""
    stall = next((i for i in range(cut, min(cut + SHIFT_SIDE, len(values) - 1))
                  if values[i] < low and values[i] < DEFAULT_DIP_FRACTION * max(values[:i])
                  and (i == cut or values[i + 1] < low)), None)
    if stall is None:
        return cut, None
    end = next((i for i in range(stall, len(values)) if values[i] >= low), len(values))
    return (cut, None) if end == len(values) else (end, stall)


def stalls(dips: Sequence[Dip], interval: float) -> list[Dip]:
    """The dips longer than one poll (or holding a hole): a one-poll blip on a loaded host is no stall.
    Where every dip is one poll (polls as long as the stalls), all of them."""
    longer = [d for d in dips if d.stalled or d.seconds > BRIEF * interval]
    return longer or list(dips)


def stopped(dips: Sequence[Dip], interval: float, levels: Sequence[tuple[datetime, float]] = ()) -> list[Dip]:
    """The stalls, one-poll dips whose poll counted no transaction at all included: TPS stopped for that poll's
    whole interval (a lock held longer than a poll), which no loaded host's blip does. At most one transaction
    (EDGE_COMMITS) is none: one can commit across the poll's edge (0.2 TPS at 5 s polls under a 7 s lock).

    So is a poll under STALL_SHARE of its level's median (`levels`: each level's first poll and median) that lost
    STOP_SECONDS of that level's work or more: a 7 s lock across 5 s polls left one poll at 44.6 TPS of 1,862.7
    (4.9 s lost) where the sessions it held back ran on, while a 1 s poll at 90 of 1,000 is a loaded host's blip
    (0.9 s)."""
    return [d for d in dips if d.stalled or d.seconds > BRIEF * interval
            or d.lowest is not None and (d.lowest * interval < EDGE_COMMITS
                                         or starved(d.lowest, level_at(levels, d.end), interval))]


def starved(lowest: float, median: float | None, interval: float) -> bool:
    """Whether a poll at `lowest` ran under STALL_SHARE of its level's median for STOP_SECONDS of lost work."""
    if not median:
        return False
    return lowest < STALL_SHARE * median and (1 - lowest / median) * interval >= STOP_SECONDS


def level_at(levels: Sequence[tuple[datetime, float]], at: datetime) -> float | None:
    """The median of the level (its first poll, its median) that `at` falls in; None before the first."""
    return next((median for first, median in reversed(levels) if first <= at), None)


def level_medians(ts: Sequence[datetime], values: Sequence[float | None],
                  splits: Sequence[int]) -> list[tuple[datetime, float]]:
    """Each level's first poll and the median of its polls (`splits`: the first poll of each new one)."""
    return [(ts[lo], float(np.median([v for v in values[lo:hi] if v is not None])))
            for lo, hi in pairwise([0, *splits, len(values)])]


def periodic(dips: Sequence[Dip], interval: float = 0.0) -> tuple[float, list[Dip]] | None:
    """The period of the dips that recur regularly, and those dips; None when fewer than MIN_DIPS do.

    Each pair of dips proposes a grid (the first's start + k x their gap); a dip is on it when a
    slot falls inside it, or before its start by at most PERIOD_SPREAD of the period (at least one
    poll interval): a sag just before a stall merges with it and moves its start. The grid
    holding the most dips, filling GRID_COVER of its slots, wins (the shorter period on a tie); its
    period is the least-squares slope of the dips' starts against their slot numbers. Other dips
    (a loaded host's sags) do not hide it.
    """
    starts = np.array([d.start.timestamp() for d in dips])
    ends = np.array([d.end.timestamp() for d in dips])
    best: tuple[int, float, list[int], list[int]] | None = None
    for first, last in _origin_blocks(len(dips)):
        found = _best_grid(starts, ends, first, last, interval)
        if found is not None and (best is None or (len(found[1]), -found[0]) > (best[0], -best[1])):
            best = (len(found[1]), *found)
    if best is None:
        return None
    _, _, on, slots = best
    period = float(np.polyfit(slots, [starts[k] - starts[on[0]] for k in on], 1)[0])
    return period, [dips[k] for k in on]


def off_grid(recurring: Sequence[Dip], halted: Sequence[Dip], levels: Sequence[tuple[datetime, float]],
             period: float, interval: float) -> bool:
    """Whether the stalls do not recur as one reads them off the chart: the gaps between consecutive stalls from the
    grid's first occurrence to its last, those off the grid that stopped TPS among them (`halted`: stopped(), under
    STALL_SHARE of their level's median: not a loaded host's sag), each regular when within GAP_SPREAD of the period
    (a poll interval at least) of a whole number of periods (one at least: a missed occurrence is a double gap);
    fewer than GRID_COVER of them regular is no period. An odd stall among ten regular ones leaves 9 of 11 regular.

    Locks taken by hand at 40, 95, 130, 210 and 260 s read "every 56 s": four on a 55 s grid filled 4 of its 5 slots,
    the fifth (130 s) between two of them; by hand, their gaps of 55, 35, 80 and 50 s are 2 regular of 4. Locks at
    18:11, 18:46, 20:06 and 21:56 read "every 112 s" from the three 115 and 110 s apart: gaps 35, 80 and 110 s."""
    first, last = recurring[0].start, recurring[-1].start
    off = [d for d in halted if first <= d.start <= last and d not in recurring and stopped_tps(d, levels)]
    gaps = np.diff(sorted(d.start.timestamp() for d in [*recurring, *off]))
    spread = np.abs(gaps - np.maximum(np.round(gaps / period), 1) * period)
    return int((spread <= max(GAP_SPREAD * period, interval)).sum()) < GRID_COVER * len(gaps)


def stopped_tps(dip: Dip, levels: Sequence[tuple[datetime, float]]) -> bool:
    """Whether TPS stopped in the dip: no poll (a hole), or its lowest under STALL_SHARE of its level's median."""
    median = level_at(levels, dip.end)
    return dip.stalled or dip.lowest is not None and median is not None and dip.lowest < STALL_SHARE * median


def on_grid(dips: Sequence[Dip], period: float, stalled: Sequence[Dip], interval: float) -> tuple[Dip, ...]:
    """The stalls periodic() found, and the other dips on their grid (stalled[0].start + k x period, as periodic()
    places a dip on it) that keep it filled: a stall that caught one low poll (a 10 s FTWRL across 5 s polls whose
    neighbours caught up above the threshold) is one more occurrence, not a blip of a loaded host.

    Such a dip starts at the poll before its low one, a poll later than a stall whose first poll was low as well:
    a whole interval after its slot, at the edge of periodic()'s slack, so half a poll more is allowed for the
    polls' jitter. Nearest the stalls first, each is taken while the occurrences still fill GRID_COVER of the
    slots from the first to the last: a sag minutes after the stalls ended is no occurrence."""
    slack = max(PERIOD_SPREAD * period, interval) + interval / 2
    origin = stalled[0].start.timestamp()
    taken = {int(round((d.start.timestamp() - origin) / period)): d for d in stalled}
    candidates = []
    for d in dips:
        k = int(np.ceil((d.start.timestamp() - slack - origin) / period))
        if d not in stalled and k not in taken and origin + k * period <= d.end.timestamp():
            candidates.append((max(min(taken) - k, k - max(taken)), k, d))
    for _, k, d in sorted(candidates, key=lambda c: c[:2]):
        if k not in taken and len(taken) + 1 >= GRID_COVER * (max(*taken, k) - min(*taken, k) + 1):
            taken[k] = d
    return tuple(sorted(taken.values(), key=lambda d: d.start))


GRID_CELLS = 250_000  # periodic(): the grids judged at once are this many dips' slots at most (pairs x dips)


def _origin_blocks(n: int) -> list[tuple[int, int]]:
    """The dips whose grids _best_grid() judges together ([first, last) as origins, each with every later dip):
    one numpy pass for many origins, of at most GRID_CELLS slots (a week's 120 dips: 7,140 grids)."""
    blocks, first, pairs = [], 0, 0
    for i in range(n - 1):
        if pairs and (pairs + n - 1 - i) * n > GRID_CELLS:
            blocks.append((first, i))
            first, pairs = i, 0
        pairs += n - 1 - i
    return blocks + [(first, n - 1)] if n > 1 else blocks


def _best_grid(starts: np.ndarray, ends: np.ndarray, first_origin: int, last_origin: int,
               interval: float) -> tuple[float, list[int], list[int]] | None:
    """Of the grids from the origins first_origin to last_origin - 1 (a dip's start, with the gap to each later
    dip's start as its period), the one periodic() takes: holding the most dips, the shorter period on a tie
    (the first such, by origin then period's dip), filling GRID_COVER of its slots; None when none does.

    A dip is taken, in order, when its slot is past the last slot taken; the slots taken rise, so that
    is the largest slot of the dips before it that hold one, which numpy finds for every dip and grid at once.
    """
    at = np.arange(first_origin, last_origin)
    count_after = len(starts) - 1 - at
    origin = np.repeat(starts[at], count_after)[:, None]
    later = np.arange(int(count_after.sum())) - np.repeat(np.cumsum(count_after) - count_after, count_after)
    periods = starts[np.repeat(at + 1, count_after) + later] - origin[:, 0]
    slack = np.maximum(PERIOD_SPREAD * periods, interval)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        slot = np.maximum(np.ceil((starts[None, :] - slack - origin) / periods[:, None]), 0)
    holds = origin + slot * periods[:, None] <= ends[None, :]
    before = np.maximum.accumulate(np.where(holds, slot, -1.0), axis=1)
    taken = holds & (slot > np.concatenate([np.full((len(periods), 1), -1.0), before[:, :-1]], axis=1))
    count = taken.sum(axis=1)
    first = np.where(count > 0, slot[np.arange(len(periods)), np.argmax(taken, axis=1)], 0).astype(np.int64)
    last = before[:, -1].astype(np.int64)  # the largest slot held: the last one taken
    fits = np.flatnonzero((count >= MIN_DIPS) & (count >= GRID_COVER * (last - first + 1)))
    if not len(fits):
        return None
    r = int(fits[np.lexsort((fits, periods[fits], -count[fits]))[0]])
    return float(periods[r]), np.flatnonzero(taken[r]).tolist(), slot[r][taken[r]].astype(np.int64).tolist()


def climbs(values: Sequence[float], cut: int) -> bool:
    """Whether the polls cut (a warm-up found) climb from the range's start to the first poll judged: their line,
    their stalls (under STALL_SHARE of the highest) left out, gains SHIFT_FLAT of the way at least. A range is
    cut anywhere in a load: 240 TPS for 13 polls, 0 for 5, then 120 and 300 for 40 each read "TPS from 120.0 to
    300.0", its first 32 polls a warm-up, though TPS fell from its first poll; a range whose TPS does not climb
    from its start has no warm-up (a run's does: its load began there)."""
    way = values[cut] - values[0]
    polls = np.asarray(values[:cut + 1], dtype=float)
    up = polls >= STALL_SHARE * polls.max()
    # The polls before the load reached the stall share are where it climbed from, no stall: a 0 poll, then
    # 189 and 187 (the first under the band) read as falling, and the 0 was judged with the load.
    kept = np.flatnonzero(up | (np.arange(len(polls)) < np.argmax(up)))
    if way <= 0 or len(kept) < 2:
        return way > 0
    rise = float(np.polyfit(kept, polls[kept], 1)[0]) * float(kept[-1] - kept[0])
    return rise >= SHIFT_FLAT * way


def is_first_level(ts: Sequence[datetime], values: Sequence[float], cut: int) -> bool:
    """Whether the cut polls (a warm-up found) are lower levels the line changed from: level changes after them,
    every level they reach flat (flat_level; a warm-up climbs to the level it reaches). Each level they reach, not
    the first alone: 240 TPS for 13 polls, 0 for 5, then 120 and 300 for 40 each were cut up to the 120s' 15th poll,
    past the first change, and read "TPS from 120.0 to 300.0"."""
    levels = levels_of(ts, values)
    splits = [next(i for i, t in enumerate(ts) if t >= s.at) for s in levels.shifts]
    reached = [(lo, hi, s) for lo, hi, s in zip([0, *splits], splits, levels.shifts, strict=False) if lo < cut]
    return bool(reached) and all(flat_level(ts[lo:hi], values[lo:hi], s, levels.stalls) for lo, hi, s in reached)


def flat_level(ts: Sequence[datetime], values: Sequence[float], step: Shift,
               left_out: Sequence[tuple[datetime, datetime]]) -> bool:
    """Whether a level's line moves less than SHIFT_FLAT of the step that ends it. The line leaves out the stalls the
    levels left out: 6 x i TPS for 28 polls, then 8 at 0, then 180 and 188 in turn read the ramp and its stall as a
    flat first level (the 0s pulled the line down) and "TPS from 81.0 to 184.0"."""
    kept = [i for i in range(len(ts)) if not any(lo <= ts[i] <= hi for lo, hi in left_out)]
    if len(kept) < 2:
        return True
    x = seconds_of([ts[i] for i in kept])
    y = np.asarray([values[i] for i in kept], dtype=float)
    rise = float(np.polyfit(x - x[0], y, 1)[0]) * float(x[-1] - x[0])
    return abs(rise) < SHIFT_FLAT * abs(step.after - step.before)


def drift(ts: Sequence[datetime], values: Sequence[float], relative: bool = True) -> Drift | None:
    """The least-squares slope against time with its 95 % interval, a minute: as % of the mean, or in units."""
    x = seconds_of(ts) / 60.0
    y = np.asarray(values, dtype=float)
    if len(y) < 3 or (relative and not y.mean()):
        return None
    x = x - x.mean()
    sxx = float((x * x).sum())
    if not sxx:
        return None
    slope = float((x * (y - y.mean())).sum()) / sxx
    resid = y - y.mean() - slope * x
    se = (float((resid * resid).sum()) / (len(y) - 2) / sxx) ** 0.5
    scale = 100.0 / float(y.mean()) if relative else 1.0
    half = t95(len(y) - 2) * se
    return Drift(slope * scale, (slope - half) * scale, (slope + half) * scale)


def t95(df: int) -> float:
    """Student's t two-sided 95 % quantile (table to 30 degrees of freedom, then the normal's 1.96 rounded up)."""
    table = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
             15: 2.13, 20: 2.09, 30: 2.04}
    return next((v for k, v in sorted(table.items()) if df <= k), 2.0)


def moving_waits(tps: Sequence[float | None], waits: Mapping[str, Sequence[float | None]],
                 splits: Sequence[int] = ()) -> list[tuple[str, float]]:
    """The waits whose rate falls as TPS rises (Pearson correlation <= -CORRELATED), most negative first.

    With `splits` (the first poll of each new TPS level), within each level: a workload's change moves its
    waits and its TPS apart without one slowing the other."""
    found = []
    line = np.array(tps, dtype=float)  # None -> NaN: a poll without a value
    for name, rates in waits.items():
        n = min(len(line), len(rates))
        other = np.array(rates[:n], dtype=float)
        at = np.flatnonzero(~np.isnan(line[:n]) & ~np.isnan(other))
        if len(at) < 3:
            continue
        a, b = line[at], other[at]
        if splits:
            level = np.searchsorted(np.asarray(splits), at, side="right")
            a, b = within_levels(level, a), within_levels(level, b)
        if a.std() and b.std():
            r = float(np.corrcoef(a, b)[0, 1])
            if r <= -CORRELATED:
                found.append((name, r))
    return sorted(found, key=lambda nr: nr[1])


def within_levels(level: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values less the mean of their own level (`level`: each value's level number)."""
    out = values.copy()
    for k in np.unique(level):
        out[level == k] -= values[level == k].mean()
    return out


def judge(ts: Sequence[datetime], values: Sequence[float | None],
          waits: Mapping[str, Sequence[float | None]] | None = None, warmup: int | None = None,
          history: Sequence[float | None] | None = None, holders: Sequence[Holder] = (),
          resumed: Mapping[datetime, datetime] | None = None, began: datetime | None = None,
          outages: Sequence[tuple[datetime, datetime]] = ()) -> Verdict:
    """The verdict on a TPS line: warm-up (found, or `warmup` polls given), then periodic, level changes, drifting
    or steady.

    `history`, the history length on the same times: its humps (history_shape: a read view held, then
    released), named after the `holders` that held them; after the last one, it drifts the verdict too
    when it grows or drains significantly while TPS holds (a read view held open: the cost comes later).
    `resumed` and `began`: find_dips' (where each hole's outage ended, where the first point's reading began).
    `outages`: those the polls had on a rollup line, (start, end) each (stability.with_outages), stalls as the
    dips list has them; a hole before the first poll (values[0] None) is judged where no warm-up is cut.
    """
    known = [i for i, v in enumerate(values) if v is not None]
    if len(known) < MIN_POINTS:
        return Verdict("", None, len(known), None)
    polled = [v for v in values if v is not None]
    cut, stall = warmup_cut(polled) if warmup is None else (min(warmup, len(known) - 1), None)
    if warmup is None and cut and (not climbs(polled, cut) or is_first_level([ts[i] for i in known], polled, cut)):
        cut, stall = 0, None
    ran_past = None if stall is None else (ts[known[stall]], ts[known[cut - 1]])
    if len(known) - cut < MIN_POINTS:  # the polls judged are those after the warm-up
        return Verdict("", None, len(known) - cut, None)
    start = known[cut] if cut else 0
    began = began if start == 0 else ts[start - 1] if values[start - 1] is not None else None
    ts, values = ts[start:], values[start:]
    kept = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    y = np.array([v for _, v in kept], dtype=float)
    cv = float(y.std() / y.mean()) if y.mean() else None
    levels = levels_of([t for t, _ in kept], y)
    shifts = levels.shifts
    splits = [next(i for i, t in enumerate(ts) if t >= s.at) for s in shifts]
    medians = level_medians(ts, values, splits)  # the dips are judged against them, the one-poll stalls too
    dips = level_dips(ts, values, splits, medians, resumed, began)
    if any(end > ts[0] for _start, end in outages):
        dips = tuple(with_outages(dips, [(a, b) for a, b in outages if b > ts[0]]))
    moving = tuple(moving_waits(values, {k: v[start:] for k, v in (waits or {}).items()}))
    interval = float(np.median(np.diff([t.timestamp() for t, _ in kept])))
    parts = history_parts(ts, history[start:], holders, interval) if history else ((), None, None, None)
    humps, trend, since, rise = parts
    base = Verdict("", kept[0][0], len(y), cv, dips=dips, waits=moving,
                   dip_seconds=float(np.median([d.seconds for d in dips])) if dips else None,
                   history=trend, humps=named(humps, holders, interval, ts, history[start:] if history else ()),
                   history_since=since, rising=rise,
                   warmup_polls=cut, last_poll=kept[-1][0], warmup_stall=ran_past,
                   dip_levels=tuple(s.at for s in shifts))
    longer = stalls(dips, interval)
    halted = stopped(dips, interval, medians)
    found = periodic(longer, interval) or periodic(halted, interval)
    recurring = on_grid(dips, found[0], found[1], interval) if found is not None else ()
    judged_waits = {k: v[start:] for k, v in (waits or {}).items()}
    # Its level changes are said beside it.
    if found is not None and not off_grid(recurring, halted, medians, found[0], interval):
        off = tuple(d for d in halted if d not in recurring and stopped_tps(d, medians))  # stalls, not blips
        return replace(base, kind="periodic", period=found[0], dips=recurring, shifts=shifts, off_period=off,
                       **blips_and_sags([d for d in dips if d not in recurring and d not in off], interval, medians),
                       dip_seconds=float(np.median([d.seconds for d in recurring])),
                       **dips_compared(ts, values, judged_waits, recurring))
    if shifts:  # the waits that grew in its stalls, not TPS's mean in them: the polls between hold two loads
        grown = dips_compared(ts, values, judged_waits, halted).get("dip_waits", ())
        return replace(base, kind="shifted", shifts=shifts, stalls=levels.stalls, dips=(), dip_seconds=None,
                       dip_waits=grown,
                       waits=tuple(moving_waits(values, {k: v[start:] for k, v in (waits or {}).items()}, splits)))
    # Next to no transactions but for bursts: their swing is no noise, nor their place a drift.
    quiet = idle_bursts([t for t, _ in kept], y.tolist(), interval) if cv and cv > NOISY_CV and not halted else None
    if quiet is not None and not base.history:
        return replace(base, kind="idle", dips=(), dip_seconds=None, idle_polls=quiet[0], bursts=tuple(quiet[1]))
    # The stalls' polls are no part of a trend (a flat line that stalls at its end would read as falling).
    stalled = within(seconds_of([t for t, _ in kept]), halted)
    moving_polls = [tv for tv, out in zip(kept, stalled.tolist(), strict=True) if not out]
    slope = drift([t for t, _ in moving_polls], [v for _, v in moving_polls])
    span_min = (kept[-1][0] - kept[0][0]) / timedelta(minutes=1)
    tps_drifts = slope and slope.significant and abs(slope.pct_per_min) * span_min >= DRIFT_MIN * 100
    if tps_drifts or base.history:  # the waits that grew in its stalls, as a level change's: TPS's mean drifts
        grown = dips_compared(ts, values, judged_waits, halted).get("dip_waits", ()) if halted else ()
        return replace(base, kind="drifting", drift=slope if tps_drifts else None, dip_waits=grown)
    if halted:
        return replace(base, kind="dips", dips=tuple(halted),
                       **blips_and_sags([d for d in dips if d not in halted], interval, medians),
                       **dips_compared(ts, values, judged_waits, halted))
    kind = "noisy" if cv is not None and cv > NOISY_CV else "steady"
    return replace(base, kind=kind, dips=(), dip_seconds=None, **blips_and_sags(dips, interval, medians))


def blips_and_sags(others: Sequence[Dip], interval: float, levels: Sequence[tuple[datetime, float]]) -> dict:
    """Verdict's other_dips and sags: the dips besides those judged, one poll long (a blip) or longer (a sag, with
    its low polls and its lowest poll as % of its level's median, `levels` as stopped() takes them).

    Two sags of 3 polls at 300 TPS of a 1,000 level between stalls every 20 s read "and 2 one-poll dips (a blip,
    not a stall)": by hand, 3 polls each at 30 % of the level, which TPS slowed to and did not stop at."""
    sags = tuple(Sag(d.start, d.end, round(d.seconds / interval), 100.0 * d.lowest / median)
                 for d in others if d.seconds > BRIEF * interval and d.lowest is not None
                 and (median := level_at(levels, d.end)))
    return {"other_dips": len(others) - len(sags), "sags": sags}


def dips_compared(ts: Sequence[datetime], values: Sequence[float | None], waits: Mapping[str, Sequence[float | None]],
                  dips: Sequence[Dip]) -> dict:
    """Verdict's dip_tps and dip_waits: the mean TPS of the dips' polls (those after a dip's start up to its end:
    its low polls) and of the other polls, and the waits whose mean rate over the dips' polls is GREW times that
    over the others and GREW_MIN more, most grown first.

    What an engineer reads off the chart, where a correlation over the whole line misses it: a lock's waiters are
    timed when each wait ends, so the poll that catches up after a stall carries the end of its wait with the
    most TPS. Seen live, FLUSH TABLES WITH READ LOCK held 4 s every 20 s under sysbench at 100 TPS (2 s polls):
    MDL_context::COND_wait_status 6.1 s a second in the dips, 0.5 between, correlated with TPS by -0.26 only."""
    inside = within(seconds_of(ts), dips)
    tps = np.array(values, dtype=float)
    known = ~np.isnan(tps)
    if not (inside & known).any() or not (~inside & known).any():
        return {}
    grown = []
    for name, rates in waits.items():
        rate = np.array(list(rates[:len(ts)]) + [None] * (len(ts) - len(rates)), dtype=float)
        seen = ~np.isnan(rate)
        if (inside & seen).any() and (~inside & seen).any():
            a, b = float(rate[inside & seen].mean()), float(rate[~inside & seen].mean())
            if a >= GREW * b and a - b >= GREW_MIN:
                grown.append(DipWait(name, a, b))
    grown.sort(key=lambda w: w.between - w.inside)
    return {"dip_tps": (float(tps[inside & known].mean()), float(tps[~inside & known].mean())),
            "dip_waits": tuple(grown[:MAX_DIP_WAITS])}


def within(seconds: np.ndarray, dips: Sequence[Dip]) -> np.ndarray:
    """Whether each time (Unix seconds) lies after a dip's start and up to its end: the latest end among the dips
    begun before it reaches it. One search per time, not a pass over the dips (a week's 3,000 polls by 40 dips
    had cost the stability page 50 ms)."""
    if not dips:
        return np.zeros(len(seconds), dtype=bool)
    spans = sorted((d.start.timestamp(), d.end.timestamp()) for d in dips)
    starts = np.array([a for a, _ in spans])
    reach = np.maximum.accumulate(np.array([b for _, b in spans]))
    before = np.searchsorted(starts, seconds, side="left") - 1  # the last dip begun strictly before each time
    return (before >= 0) & (seconds <= reach[np.maximum(before, 0)])


def level_dips(ts: Sequence[datetime], values: Sequence[float | None], splits: Sequence[int],
               medians: Sequence[tuple[datetime, float]], resumed: Mapping[datetime, datetime] | None = None,
               began: datetime | None = None) -> tuple[Dip, ...]:
    """The dips of each level (`splits`: the first poll of each new one; `medians`: level_medians()) below
    DEFAULT_DIP_FRACTION of its own median: a lower level is no stall of a higher one (30 TPS, then 60, then 90:
    the 30s hover at half the median and read as dips of the whole range). resumed: find_dips' (where each hole's
    outage ended); began: where the first point's reading began. A later level's first point counts from the
    point before it."""
    found: list[Dip] = []
    for (lo, hi), (_first, median) in zip(pairwise([0, *splits, len(values)]), medians, strict=True):
        first = began if lo == 0 else ts[lo - 1] if values[lo - 1] is not None else None
        found += find_dips(ts[lo:hi], values[lo:hi], median * DEFAULT_DIP_FRACTION, resumed=resumed,
                           first_began=first)
    return tuple(found)


def table_threshold(tps: ChartPoints, verdict: Verdict, threshold: float,
                    fraction: float = DEFAULT_DIP_FRACTION) -> Threshold:
    """The dips table's threshold: `threshold` (`fraction` of the range's median), or where the verdict found level
    changes, `fraction` of each level's own median (stability.level_thresholds), as level_dips judges them; the
    first level's median is over the polls from the first one judged (after the warm-up). A periodic verdict is no
    level change's, but judged its dips per level all the same (dip_levels): 100 TPS, then 300, with stalls every
    2 minutes listed the whole first level as one dip, under half the range's median (150)."""
    changes = sorted({s.at for s in verdict.shifts} or set(verdict.dip_levels))
    if not changes or not tps.ts:
        return threshold
    first = verdict.warmup_end if verdict.warmup_end is not None and verdict.warmup_end < changes[0] else tps.ts[0]
    return level_thresholds(tps, [first, *changes], fraction) or threshold


HISTORY_MIN = 1000  # undo logs: a history length that moved less over the range is not drifting


def history_parts(ts: Sequence[datetime], values: Sequence[float | None], holders: Sequence[Holder] = (),
                  interval: float = 0.0) -> tuple[tuple[Hump, ...], Drift | None, datetime | None, Rise | None]:
    """The history length's humps, its drift after the last one (history_drift) and before a rise at the
    end (history_shape.open_rise: a read view still open is no drift), where that starts (None without
    humps: the whole range), and that rise."""
    kept = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    if len(kept) < 3:
        return (), None, None, None
    found = shape([t for t, _ in kept], [v for _, v in kept])
    rest = kept[found.rest:]
    rise = open_rise([t for t, _ in rest], [v for _, v in rest], holders, interval)
    if rise:
        rest = rest[:-rise.polls]
    trend = history_drift([t for t, _ in rest], [v for _, v in rest])
    return found.humps, trend, rest[0][0] if found.humps and trend else None, rise


def history_drift(ts: Sequence[datetime], values: Sequence[float | None]) -> Drift | None:
    """The history length's slope (units a minute) when it moved significantly and by HISTORY_MIN or more, over
    OWN_POLLS polls at least: fewer after a hump are one tooth of purge's sawtooth (449 to 2,666 in 4 polls of a
    run bounded at 3,897 read "growing 9,615 / min"), as the purge verdict needs them before "purge-bound"."""
    kept = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    found = drift([t for t, _ in kept], [v for _, v in kept], relative=False) if len(kept) >= OWN_POLLS else None
    if found is None or not found.significant:
        return None
    span_min = (kept[-1][0] - kept[0][0]) / timedelta(minutes=1)
    return found if abs(found.pct_per_min) * span_min >= HISTORY_MIN else None


def aligned(ts: Sequence[datetime], series_ts: Sequence[datetime], values: Sequence[float | None]) -> list:
    """Another line's values on the TPS line's times: its point nearest each, when within half the TPS
    line's median poll interval (each source stamps its own reading time in a poll); else None."""
    if len(ts) < 2 or not series_ts:
        return [None] * len(ts)
    return _aligned_at(seconds_of(ts), seconds_of(series_ts), values)


def _aligned_at(at: np.ndarray, theirs: np.ndarray, values: Sequence[float | None]) -> list:
    """aligned() on the two lines' times as Unix seconds (at least two of the TPS line's, one of theirs)."""
    reach = float(np.median(np.diff(at))) / 2
    right = np.clip(np.searchsorted(theirs, at), 1, len(theirs) - 1) if len(theirs) > 1 else np.zeros(len(at), int)
    left = np.maximum(right - 1, 0)
    nearest = np.where(np.abs(theirs[left] - at) <= np.abs(theirs[right] - at), left, right)
    found = np.array([*values, None], dtype=object)[:-1][nearest]  # [None]: a 1-d array of the values as they are
    found[np.abs(theirs[nearest] - at) > reach] = None
    return found.tolist()


def lines_on(tps: ChartPoints, lines: Sequence[ChartPoints]) -> list[list]:
    """aligned() of each line on the TPS line's times, those converted to seconds once (unix_seconds)."""
    if len(tps.ts) < 2:
        return [[None] * len(tps.ts) for _line in lines]
    at = unix_seconds(tps)
    # len(values), not ts: a store line's times are built when first read, and these are read as seconds
    return [_aligned_at(at, unix_seconds(line), line.values) if len(line.values) else [None] * len(at)
            for line in lines]


def judge_lines(
    tps: ChartPoints, waits: Sequence[tuple[str, ChartPoints]], history: ChartPoints | None = None,
    warmup: int | None = None, holders: Sequence[Holder] = (), outages: Sequence[tuple[datetime, datetime]] = (),
) -> Verdict:
    """judge() on chart lines (objects with .ts and .values): TPS, the (name, line) of each top wait, and
    the history length's line; `warmup` polls left out (a run's own), else the warm-up found; `holders`,
    who held the oldest transaction over the range, name the history's humps. TPS's holes on its edges
    (points.with_edge_holes) and `outages` (a rollup line's, read from its polls) are judged as the dips list
    (stability.line_dips, with_outages) lists them: a range that ends in an outage is not "steady"."""
    drawn = history is not None and bool(history.ts)
    on = lines_on(tps, [line for _name, line in waits] + ([history] if history is not None and drawn else []))
    ts, values, resumed = with_edge_holes(tps)
    front = ts.index(tps.ts[0]) if tps.ts else 0
    on = [[None] * front + line + [None] * (len(ts) - front - len(line)) for line in on]
    return judge(ts, values, {name: v for (name, _line), v in zip(waits, on, strict=False)}, warmup=warmup,
                 history=on[-1] if drawn else None, holders=holders, resumed=resumed, began=first_began(tps),
                 outages=outages)


def moving_lines(tps: ChartPoints, lines: Sequence[tuple[str, ChartPoints]],
                 dips: Sequence[Dip] = ()) -> tuple[MovingWait, ...]:
    """The lines moving against TPS after the warm-up found (none where TPS has fewer than MIN_POINTS polls), as the
    verdict judges its waits without the rest of it: correlated with TPS (judge_lines(tps, lines).waits), or grown
    in `dips` (the verdict's: dips_compared), those correlated first, most negative first.

    The dips as well as the correlation: MDL_context::COND_wait_status at 8 s waited a second in locks of 4 s every
    20 s, 0.4 between them (the catch-up polls carry their waits' ends), is correlated with TPS by -0.31 only, and
    a hidden condition wait that the verdict would name with cond=1 was called idle."""
    known = [i for i, v in enumerate(tps.values) if v is not None]
    if len(known) < MIN_POINTS:
        return ()
    start = known[warmup_end([v for v in tps.values if v is not None])]
    rates = {name: v[start:] for (name, _line), v in zip(lines, lines_on(tps, [line for _n, line in lines]),
                                                          strict=True)}
    correlated = dict(moving_waits(tps.values[start:], rates))
    grown = {w.name: w for w in dips_compared(tps.ts[start:], tps.values[start:], rates, dips).get("dip_waits", ())}
    names = [*correlated, *(name for name in grown if name not in correlated)]
    return tuple(MovingWait(name, correlated.get(name), grown.get(name)) for name in names)
