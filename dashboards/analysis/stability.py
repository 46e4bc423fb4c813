"""Stability figures of a TPS line: mean, percentiles, coefficient of variation, dips."""

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from dashboards.analysis.points import ChartPoints, first_began, with_edge_holes
from store.stats import percentile

DEFAULT_DIP_FRACTION = 0.5
# Transactions a poll's interval must hold at the dip threshold's rate before a lower rate is told from chance: a
# poll 30 ms after the one before counted none of a 150 TPS load (4.5 expected) and read as a stall.
MIN_DIP_COUNT = 5

# A dip's threshold: one for the whole line, or one a level, (its first time, its threshold) each in time order
# (level_thresholds): a lower level's noise is no dip of a higher one.
Threshold = float | Sequence[tuple[datetime, float]]


@dataclass(frozen=True)
class Summary:
    points: int
    mean: float | None
    median: float | None
    p5: float | None
    p95: float | None
    cv: float | None  # standard deviation / mean: 0 is a flat line


@dataclass(frozen=True)
class Dip:
    start: datetime
    end: datetime
    lowest: float | None  # None: no poll at all in the dip (an outage or a restart)
    stalled: bool = False  # it holds a hole: no poll succeeded for a while

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def summarize(values: Sequence[float | None], mean: float | None = None) -> Summary:
    """Summary of the known values; pass `mean` when an exact one (from totals) is at hand."""
    known = sorted(v for v in values if v is not None)
    if not known:
        return Summary(0, mean, None, None, None, None)
    avg = sum(known) / len(known)
    std = math.sqrt(sum((v - avg) ** 2 for v in known) / len(known))
    mean = avg if mean is None else mean
    return Summary(
        points=len(known), mean=mean, median=percentile(known, 50),
        p5=percentile(known, 5), p95=percentile(known, 95),
        cv=std / avg if avg and len(known) > 1 else None,  # one rate is no spread: not "a steady line"
    )


def counts_nothing(summary: Summary) -> bool:
    """Polls that counted no transaction at all: a 0 line is no steady one (it has no CV, nor a warm-up)."""
    return summary.points > 0 and not summary.mean


def counts_next_to_nothing(summary: Summary, transactions: float) -> bool:
    """Polls that counted fewer than MIN_DIP_COUNT transactions in all (`transactions`): a 0 line but for a commit
    or two, as an autocommit load reads where only explicit ones are counted, is no line to judge either. Seen live:
    MariaDB 10.11 at its defaults under 4,000 autocommit UPDATEs a second, the one COMMIT of a session holding a
    read view counted in 28 polls, read "Noisy: TPS swings around its level ... (CV 519.6 %)"."""
    return summary.points > 0 and 0 < transactions < MIN_DIP_COUNT


def no_line(summary: Summary, transactions: float) -> tuple[bool, int | None]:
    """Whether the polls leave no TPS line to judge (counts_nothing or counts_next_to_nothing), and where they
    counted next to nothing, how many transactions (`transactions`: those the summary's polls counted) to say."""
    few = counts_next_to_nothing(summary, transactions)
    return counts_nothing(summary) or few, int(transactions) if few else None


def find_dips(
    ts: Sequence[datetime], values: Sequence[float | None], threshold: Threshold, bucket: timedelta | None = None,
    resumed: Mapping[datetime, datetime] | None = None, first_began: datetime | None = None,
) -> list[Dip]:
    """Runs of consecutive points below the threshold or holes (None: no poll succeeded, a stall).

    A point's rate covers the span since the point before it (a poll's delta since the last poll),
    so a dip starts at the point before its first low one (or hole) and ends at its last low point; a
    dip on the first point, with none before it, starts where that point's reading began: `first_began`
    (store.query.Series.began, ts - the poll's interval), a bucket's start, else at the point itself;
    a hole ends where its outage did, `resumed` by the hole's time (store.query.Series.resumed: the
    first poll after it, whose delta spans the hole and is no point of a rate line), else at the
    first point after it, whose delta covers it; a low point after a hole that ended before it is a dip
    of its own, from the hole's end (the stall holds no reading, the dip no outage). `bucket`: the points are
    rollup buckets this wide, stamped at their start and middle: each covers its bucket, so it counts at the
    bucket's end, and a hole runs from the end of the last bucket with polls to the start of the next.
    `threshold` per level: each point is judged by its level's (thresholds_at), and a dip across a level's start
    is two, one a level (a hole stays one). A low poll whose interval holds fewer than MIN_DIP_COUNT transactions
    at the threshold's rate is no dip: so few could be missing by chance.
    """
    limits = thresholds_at(ts, threshold)
    levels = levels_at(ts, threshold)
    ends = [resumed.get(t) if v is None else None for t, v in zip(ts, values, strict=True)] if resumed else (
        [None] * len(values))
    if bucket is not None:
        ts = bucket_ends(ts, values, bucket)
        first_began = first_began or (ts[0] - bucket if ts and values[0] is not None else None)
    late = bucket or timedelta(0)  # a hole ends where the first bucket with polls again begins
    dips: list[Dip] = []
    current: Dip | None = None
    prev = first_began if values and values[0] is not None else None  # a first hole has no reading
    in_hole, hole_end = False, None
    for i, (t, v, end, limit) in enumerate(zip(ts, values, ends, limits, strict=True)):
        if v is not None and v < limit and bucket is None and prev is not None and \
                limit * (t - prev).total_seconds() < MIN_DIP_COUNT:
            prev, in_hole, hole_end = t, False, end  # too short to tell: it neither starts nor ends a dip
            continue
        if current is not None and not current.stalled and v is not None and levels[i] != levels[i - 1]:
            dips.append(current)  # each level's dips are its own, as the verdict judges them (level_dips)
            current = None
        if v is not None and v < limit and in_hole and current is not None and \
                _after_hole(current, t - late, hole_end).end < t:
            # A low reading after an outage measured from where it ended: the outage a stall, the reading a dip.
            dips.append(_after_hole(current, t - late, hole_end))
            current = Dip(dips[-1].end, t, v)
        elif v is None or v < limit:
            current = _extend(current, t if prev is None else prev, t, v)
        elif current is not None and t > current.end:  # a bucket's high point beside its low one ends nothing
            dips.append(_after_hole(current, t - late, hole_end) if in_hole else current)
            current = None
        prev, in_hole, hole_end = t, v is None, end
    if current is not None:
        dips.append(current)
    return dips


def levels_at(ts: Sequence[datetime], threshold: Threshold) -> list[int]:
    """Each time's level, by number (0 throughout where one threshold holds for the whole line)."""
    if isinstance(threshold, float | int):
        return [0] * len(ts)
    starts = [t for t, _ in threshold]
    return [max(bisect_right(starts, t) - 1, 0) for t in ts]


def thresholds_at(ts: Sequence[datetime], threshold: Threshold) -> list[float]:
    """Each time's threshold: the line's, or its level's (the points before the first level's are judged by it)."""
    if isinstance(threshold, float | int):
        return [float(threshold)] * len(ts)
    starts = [t for t, _ in threshold]
    return [threshold[max(bisect_right(starts, t) - 1, 0)][1] for t in ts]


def level_thresholds(points: ChartPoints, starts: Sequence[datetime],
                     fraction: float = DEFAULT_DIP_FRACTION) -> list[tuple[datetime, float]]:
    """`fraction` of each level's own median, as run_verdict.level_dips judges them: (its first time, its
    threshold) a level; `starts`, the first time of each in time order (the verdict's first poll judged, then
    its shifts'). A level with no point in the line is left out."""
    found = []
    for k, lo in enumerate(starts):
        hi = starts[k + 1] if k + 1 < len(starts) else None
        level = [v for t, v in zip(points.ts, points.values, strict=True)
                 if v is not None and t >= lo and (hi is None or t < hi)]
        median = summarize(level).median
        if median is not None:
            found.append((lo, median * fraction))
    return found


def per_level(threshold: Threshold | None) -> list[float]:
    """Each level's threshold, where there is one a level; none where one threshold holds for the whole line."""
    return [] if threshold is None or isinstance(threshold, float | int) else [t for _, t in threshold]


def line_dips(points: ChartPoints, threshold: Threshold, bucket: timedelta | None = None) -> list[Dip]:
    """find_dips() of a store line (store.query.Series): its holes ending where their outages did, a dip on its
    first point starting where that point's reading began, and the holes on its edges (with_edge_holes)."""
    ts, values, resumed = with_edge_holes(points)
    return find_dips(ts, values, threshold, bucket, resumed, first_began(points))


def with_outages(dips: Sequence[Dip], outages: Sequence[tuple[datetime, datetime]]) -> list[Dip]:
    """A rollup line's dips with the outages its polls had (store.query.outages: (start, end) each) added as stalls:
    a hole shorter than ~1.5 buckets leaves every bucket with a reading, so find_dips sees none. A dip an outage
    overlaps is a stall as wide as both: a hole the buckets show runs from the end of the last bucket with polls
    to the start of the next, up to a bucket short at each end of the outage's own. An outage overlapping several
    dips joins them all into one row: two rows over the same time would list it twice."""
    out = list(dips)
    for start, end in outages:
        hit = [d for d in out if d.start < end and start < d.end]
        lows = [d.lowest for d in hit if d.lowest is not None]
        out = [d for d in out if not (d.start < end and start < d.end)]
        out.append(Dip(min([start] + [d.start for d in hit]), max([end] + [d.end for d in hit]),
                       min(lows, default=None), stalled=True))
    return sorted(out, key=lambda d: d.start)


def _after_hole(dip: Dip, after: datetime, resumed: datetime | None) -> Dip:
    """A dip ending on a hole, closed by a point that counts from `after`: the hole ends where its outage
    did (resumed), else there."""
    return replace(dip, end=after if resumed is None else max(resumed, dip.start))


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def bucket_ends(ts: Sequence[datetime], values: Sequence[float | None], bucket: timedelta) -> list[datetime]:
    """Each rollup point at the end of its bucket (buckets counted from the Unix epoch); a hole's point
    stays where it is, or at the end of the bucket before it if that is later."""
    out: list[datetime] = []
    for t, v in zip(ts, values, strict=True):
        end = t - (t - EPOCH) % bucket + bucket if v is not None else t
        out.append(max(end, out[-1]) if out else end)
    return out


def _extend(dip: "Dip | None", start: datetime, t: datetime, v: float | None) -> Dip:
    """The dip so far, with one more low point (or hole) at t."""
    if dip is None:
        dip = Dip(start, t, None)
    lowest = dip.lowest if v is None else v if dip.lowest is None else min(dip.lowest, v)
    return Dip(dip.start, t, lowest, dip.stalled or v is None)


def dip_threshold(summary: Summary, fraction: float = DEFAULT_DIP_FRACTION) -> float | None:
    return None if summary.median is None else summary.median * fraction


def merge_close(dips: Sequence[Dip], gap: timedelta) -> list[Dip]:
    """Dips separated by less than `gap` read as one stall.

    A dip holding a hole merges with none: its ends are polls (the last before the hole, the one
    that ended the outage), and the polls between it and its neighbour are good readings, which one
    "no polls" row across both would deny (two outages 20 s apart read as one 60 s outage).
    """
    merged: list[Dip] = []
    for dip in dips:
        prev = merged[-1] if merged else None
        if prev and not (prev.stalled or dip.stalled) and timedelta(0) < dip.start - prev.end <= gap:
            merged.pop()
            dip = Dip(prev.start, dip.end, min(x for x in (prev.lowest, dip.lowest) if x is not None))
        merged.append(dip)
    return merged
