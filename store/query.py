"""The one query API of the store, used by every chart, table, alert and export.

series() picks the data by range (full resolution: hot rows and compacted
hours; or 1-minute / 1-hour rollups) and never returns more than max_points
points per series, keeping each bin's min and max. Where no poll succeeded
for more than ~1.5 intervals a series holds a None (store.breaks). totals() sums counter
deltas exactly, in Python integers.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

import numpy as np
import redis

from store import breaks, buffer, catalog, levels, read_full, read_matrix, read_rollups
from store.exact_sums import group_sums, sums_by
from store.models import Gap
from store.points import SampleArrays, datetimes, from_micros, micros
from store.read_matrix import HoursKept


class _Times:
    """Series.ts: given, or built from Series.us on its first read (a line only drawn, which works in
    microseconds, never builds a datetime for each point). A dataclass field's descriptor: no default."""

    def __get__(self, obj: "Series | None", owner: type | None = None) -> list[datetime]:
        if obj is None:
            raise AttributeError("ts")
        ts = obj.__dict__["_ts"]
        if ts is None:
            ts = obj.__dict__["_ts"] = [] if obj.us is None else datetimes(obj.us)
        return ts

    def __set__(self, obj: "Series", ts: list[datetime] | None) -> None:
        obj.__dict__["_ts"] = ts  # None: from us, when first read


@dataclass
class Series:
    server_id: int
    metric: str
    kind: str  # "counter" | "gauge"
    ts: _Times = _Times()
    # mypy takes ts's descriptor for a default; its __get__ on the class raises AttributeError
    values: list[float | None]  # type: ignore[misc]
    # ts as the reads' Unix microseconds, where a reader built them (set after: a replace() drops it, not stale)
    us: np.ndarray | None = field(default=None, init=False, compare=False, repr=False)
    # A break's time (its None) -> when its outage ended (store.breaks.outage_ends): the first poll after the
    # hole, which a counter's rate line leaves out when its delta spans the hole. Keyed by time: slices keep it.
    # Approximate on a line downsampled with more holes than max_points / 6 (breaks.downsample_with_breaks then
    # keeps only each bin's min and max): the point after a break is a bin's, so it says when that point's
    # reading began, up to a bin after the outage ended.
    resumed: dict[datetime, datetime] = field(default_factory=dict, compare=False, repr=False)
    # The first point's time and when its reading began (ts - interval for a rate; a rollup bucket's start): no
    # point before it says where its span starts. Kept with its time: a slice starting later does not match it.
    began: tuple[datetime, datetime] | None = field(default=None, compare=False, repr=False)
    # Holes at the line's start and end that no None marks, each (when its outage began, when it ended): the range
    # starts in an outage whose end its first poll read, or ends at the poll that read one. That poll's delta
    # spans the hole, so a rate line leaves it out, and no point lies beyond it in the range.
    edge_holes: tuple[tuple[datetime, datetime] | None, tuple[datetime, datetime] | None] = field(
        default=(None, None), compare=False, repr=False)


def series(server_ids: list[int], metrics: list[str], start: datetime, end: datetime,
           max_points: int = 1200, mode: str = "rate") -> list[Series]:
    """Series for each server and each metric name or '*' pattern, at most max_points each."""
    return series_windows([(server_id, start, end) for server_id in server_ids], metrics, max_points, mode)


def series_windows(windows: list[tuple[int, datetime, datetime]], metrics: list[str], max_points: int = 1200,
                   mode: str = "rate") -> list[Series]:
    """series() of servers each over its own range (server id, start, end; one range per server), in the
    order given. Ranges read at full resolution are read for every server at once."""
    return _as_series(_picked(windows, metrics, max_points, mode))


@dataclass
class SeriesArrays:
    """A Series as numpy arrays: times as Unix microseconds, values with NaN for a break."""

    server_id: int
    metric: str
    kind: str
    ts: np.ndarray
    values: np.ndarray


def series_arrays(server_ids: list[int], metrics: list[str], start: datetime, end: datetime,
                  max_points: int = 1200, mode: str = "rate") -> list[SeriesArrays]:
    """series() without building a datetime and a float object per point: for readers that work in arrays."""
    picked = _picked([(server_id, start, end) for server_id in server_ids], metrics, max_points, mode)
    return [SeriesArrays(sid, m.name, m.kind, ts, vals) for sid, m, ts, vals, *_rest in picked]


def _picked(windows: list[tuple[int, datetime, datetime]], metrics: list[str], max_points: int,
            mode: str) -> list[tuple]:
    """(server id, metric, ts, values, outage ends, first began, edge holes) of each series of the windows
    (_line's), values with NaN for a break."""
    if mode not in ("rate", "delta"):
        raise ValueError(f"store: unknown series mode {mode!r}: use 'rate' or 'delta'")
    by_server = _by_server(list(dict.fromkeys(w[0] for w in windows)), metrics)
    choose = levels.chooser()
    levels_of = [choose(start, end, max_points) for _sid, start, end in windows]
    at_full = {sid: (start, end) for (sid, start, end), level in zip(windows, levels_of, strict=True)
               if level == levels.FULL}
    full = read_full.read_many({sid: by_server[sid] for sid in at_full}, at_full)
    picked = []
    for (server_id, start, end), level in zip(windows, levels_of, strict=True):
        infos = by_server[server_id]
        if level == levels.FULL:
            data = full.get(server_id, {})
            points = {m.id: _full_points(m, data.get(m.id, SampleArrays.empty()), mode) for m in infos}
        else:
            buckets = read_rollups.read(server_id, infos, level, start, end, rate_lines=mode == "rate",
                                        gauge_lines=True)
            width = read_rollups.WIDTH[level]
            points = {m.id: _bucket_points(m, buckets[m.id], width, mode) for m in infos}
        picked += [_line(server_id, m, points[m.id], max_points) for m in infos]
    return picked


class _Points(NamedTuple):
    """A series' points before breaks are marked: times, values, the holes (store.breaks.cuts, per pair)."""

    ts: np.ndarray
    vals: np.ndarray
    cut: np.ndarray
    since: np.ndarray  # when each point's reading began: a counter's rate covers (ts - interval, ts]
    edges: tuple = (None, None)  # Series.edge_holes, in Unix microseconds


def _line(server_id: int, m: catalog.MetricInfo, p: _Points, max_points: int | None) -> tuple:
    """(server id, metric, ts, values with a NaN at each break, outage ends, when the first point's reading
    began: None without points, edge holes) of one series: at most max_points points (None: every one)."""
    if max_points is None:
        ts, vals = breaks.with_breaks(p.ts, p.vals, p.cut)
    else:
        ts, vals = breaks.downsample_with_breaks(p.ts, p.vals, p.cut, max_points)
    began = int(p.since[np.searchsorted(p.ts, ts[0])]) if len(ts) else None
    lead, tail = p.edges
    tail = tail and (int(ts[-1]), tail[1])  # from the line's last point: downsampling may have left out the poll's
    return server_id, m, ts, vals, breaks.outage_ends(ts, vals, p.ts, p.since), began, (lead, tail)


def within(server_id: int, metrics: list[str], start: datetime, end: datetime,
           mode: str = "rate") -> list[Series]:
    """Every full-resolution point whose whole interval lies in [start, end], never downsampled.

    A counter's delta covers (ts - interval, ts]: one that began before
    `start` (the first poll of a run, mostly before it) is left out, so
    statistics of a window use only what was measured inside it. Holes are
    None, as in series(). Samples past retention are gone: nothing is read.
    """
    infos = catalog.matching(catalog.server_metrics([server_id], metrics), metrics)
    return _within(server_id, infos, read_full.read(server_id, infos, start, end), start, mode)


def _within(server_id: int, infos: list[catalog.MetricInfo], data: dict[int, SampleArrays], start: datetime,
            mode: str) -> list[Series]:
    """within() of samples read from `start` on."""
    lo = micros(start)
    picked = []
    for m in infos:
        pts = data.get(m.id, SampleArrays.empty())
        if m.counter:
            inside = (pts.iv > 0) & (pts.ts - pts.iv * 1000 >= lo)
            pts = SampleArrays(pts.ts[inside], pts.vals[inside], pts.iv[inside])
        picked.append(_line(server_id, m, _full_points(m, pts, mode), None))
    return _as_series(picked)


def outages(server_id: int, metric: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    """Each hole in a counter's polls in [start, end], however short: (the last poll before it, where its
    outage ended), as series() at full resolution marks them (breaks, Series.resumed, Series.edge_holes).

    series() from rollups sees only holes longer than ~1.5 buckets: a bucket with polls on both sides
    of a 30 s outage still holds readings, and keeps no poll's time to say where it was. Read from the
    polls: nothing past their retention.
    """
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], [metric]), [metric]) if m.counter]
    found = read_full.read(server_id, infos, start, end)
    out: list[tuple[int, int]] = []
    for m in infos:
        p = _full_points(m, found.get(m.id, SampleArrays.empty()), "rate")
        at = np.flatnonzero(p.cut)
        lead, tail = p.edges
        out += [lead] if lead else []
        out += zip(p.ts[at].tolist(), np.maximum(p.since[at + 1], p.ts[at]).tolist(), strict=True)
        out += [tail] if tail else []
    return [(from_micros(a), from_micros(b)) for a, b in out]


def polls_back(server_id: int, metric: str, start: datetime, end: datetime, first: timedelta,
               reach: timedelta = timedelta(0)) -> Iterator[tuple[datetime, float]]:
    """A metric's full-resolution values in [start, end] (a counter's: per-poll rates), newest first.

    Read in windows growing back from `end` (first, then 24 times longer each): the newest
    reading, or a run that began recently, costs one small read even over days. A generator:
    the caller stops where its run ends. reach: each window is read that much earlier, as
    within() leaves out a counter's delta that began before its start (the server's
    staleness, where a poll may be that late).
    """
    span = first
    while start <= end:
        lo = max(start, end - span)
        for s in within(server_id, [metric], lo - reach, end):
            if s.metric == metric:
                yield from ((t, v) for t, v in zip(reversed(s.ts), reversed(s.values), strict=True)
                            if v is not None and t >= lo)
        end, span = lo - TICK, span * 24  # within() includes both ends


def _as_series(picked: list[tuple]) -> list[Series]:
    """Series whose datetimes are built from their microseconds when first read (Series.ts)."""
    return [_with_us(Series(sid, m.name, m.kind, None, _nones(vals), resumed=_resumed(ends),
                            began=None if began is None else (datetimes(ts[:1])[0], from_micros(began)),
                            edge_holes=_edge_datetimes(edges)), ts)
            for sid, m, ts, vals, ends, began, edges in picked]


def _edge_datetimes(edges: tuple) -> tuple:
    """Series.edge_holes from _Points.edges (microseconds)."""
    return tuple(None if e is None else (from_micros(e[0]), from_micros(e[1])) for e in edges)


def _resumed(ends: tuple[np.ndarray, np.ndarray]) -> dict[datetime, datetime]:
    """Series.resumed from outage_ends' arrays: each break's datetime -> its outage's end."""
    at, end = ends
    return dict(zip(datetimes(at), datetimes(end), strict=True)) if len(at) else {}


def _with_us(s: Series, us: np.ndarray) -> Series:
    """The series with its times' microseconds kept: figures and verdicts take epoch times from them."""
    s.us = us
    return s


def _nones(vals: np.ndarray) -> list[float | None]:
    """NaN (a break) as None."""
    if not np.isnan(vals).any():
        return vals.tolist()
    return [None if v != v else v for v in vals.tolist()]


def _full_points(m: catalog.MetricInfo, pts: SampleArrays, mode: str) -> _Points:
    """Values (rates of counters), where the holes are, and when each rate's interval began.

    A counter's rate over an interval that spans a hole is its average over
    the outage, not a reading: it is left out of the line (totals keep it).
    """
    vals = pts.vals.astype(np.float64)
    since = pts.ts
    lost = np.zeros(len(vals), dtype=bool)  # deltas that are no reading: the first after a restart, or spanning a hole
    if m.counter and mode == "rate":
        lost = (pts.iv <= 0) | breaks.spanning(pts.iv, pts.ts)
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(~lost, vals * 1000.0 / pts.iv, np.nan)
        since = pts.ts - np.maximum(pts.iv, 0) * 1000
    keep = ~np.isnan(vals)
    cut = breaks.cuts(pts.ts)  # judged on every poll, not only those with a rate: a left-out delta is no hole
    before = np.cumsum(np.append(0, cut))  # holes up to each poll
    at = np.flatnonzero(keep)
    return _Points(pts.ts[keep], vals[keep], before[at[1:]] > before[at[:-1]] if len(at) else np.zeros(0, dtype=bool),
                   since[keep], _edge_holes(pts.ts, since, at, lost, cut))


def _edge_holes(ts: np.ndarray, since: np.ndarray, at: np.ndarray, lost: np.ndarray, cut: np.ndarray) -> tuple:
    """_Points.edges: the holes before the first point kept (`at`: the polls kept) and after the last, whose
    polls' deltas are lost. Before: a delta spanning an outage, from where it began (a restart's first poll
    says nothing of when the server went away). After: from the last point to the next poll, whose delta is
    lost (it read the outage's end), where the two polls are a hole apart (`cut`, per pair of polls), as between
    two points: a poll on time with no delta (one of unknown interval) is no hole, as it is none mid-line."""
    if not len(at):
        return None, None
    first, last = int(at[0]), int(at[-1])
    j = first - 1  # the poll before the first point kept
    lead = (int(since[j]), int(ts[j])) if first and lost[j] and since[j] < ts[j] else None
    tail = (int(ts[last]), int(ts[last + 1])) if last + 1 < len(ts) and lost[last + 1] and cut[last] else None
    return lead, tail


def _bucket_points(m: catalog.MetricInfo, b: dict, width_us: int, mode: str) -> _Points:
    """Two points per bucket, its min then its max (one if they are equal), so spikes survive.

    A counter's rate points are the lowest and highest rate a poll of the bucket
    measured (store.rollups: rmin, rmax); a bucket where none did (every delta
    spans an outage) has no point, as the full-resolution line has none there.
    A missing bucket (more than ~1.5 of the usual bucket distance) is a hole.
    """
    if m.counter and mode == "rate":
        b = {k: v[~np.isnan(b["rmin"])] for k, v in b.items()}
        lo, hi = b["rmin"], b["rmax"]
        mid = lo  # equal extremes: the rate every poll measured (the bucket's mean may hold an outage's delta)
    else:
        lo, hi = b["min"].astype(np.float64), b["max"].astype(np.float64)
        mid = b["sum"] / b["count"].astype(np.float64)
    t = b["idx"] * width_us
    flat = lo == hi
    ts = np.empty(2 * len(t), np.int64)
    ts[0::2], ts[1::2] = t, t + width_us // 2
    vals = np.empty(2 * len(t), np.float64)
    vals[0::2], vals[1::2] = np.where(flat, mid, lo), np.where(flat, np.nan, hi)  # NaN: no second point
    keep = ~np.isnan(vals)
    bucket_cut = np.append(breaks.cuts(t, width_us), False)
    owner = np.repeat(np.arange(len(t)), 2)[keep]  # the bucket of each point kept
    cut = (owner[1:] != owner[:-1]) & bucket_cut[owner[:-1]]
    return _Points(ts[keep], vals[keep], cut, t[owner])  # a bucket's points cover it from its start


def totals(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, int | float]:
    """Exact sums of the counters' per-interval deltas with start <= ts <= end (gauges are left out).

    Whole hours and minutes are summed from the rollups' bucket sums (exact
    integer sums of the same deltas), the ragged edges from the samples.
    Beyond a level's retention, that part of the range is summed from the
    next coarser level, so very old ranges are exact to the minute or hour.
    """
    return {name: total for name, (total, _seconds) in totals_and_seconds(server_id, metrics, start, end).items()}


def totals_and_seconds(server_id: int, metrics: list[str], start: datetime,
                       end: datetime) -> dict[str, tuple[int | float, float]]:
    """totals(), each with the seconds its deltas cover, from the same read: what the total is a rate over.

    Each delta covers its own interval (ts - interval, ts], so a range's first poll
    measured time before the range and its last may end before the range does:
    a total over (start, end] divided by end - start is off by up to an interval at each end.
    """
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], metrics), metrics) if m.counter]
    sums: dict[int, list[np.ndarray]] = {m.id: [] for m in infos}
    ms: dict[int, list[np.ndarray]] = {m.id: [] for m in infos}
    for level, lo, hi in _total_parts(start, end):
        if level == levels.FULL:
            found = {mid: (p.vals, np.where(p.iv > 0, p.iv, 0))
                     for mid, p in read_full.read(server_id, infos, lo, hi - TICK).items()}
        else:
            whole = read_rollups.holds_whole(read_rollups.WIDTH[level], micros(start), micros(end))
            buckets = read_rollups.read(server_id, infos, level, lo, hi - TICK, overlapping=not whole, sums_only=True)
            found = {mid: (b["sum"], b["ms"]) for mid, b in buckets.items()}
        for mid, (vals, iv) in found.items():
            sums[mid].append(vals)
            ms[mid].append(iv)
    totals = group_sums([sums[m.id] for m in infos])  # every metric in one pass: 700 wait counters
    seconds = group_sums([ms[m.id] for m in infos])
    return {m.name: (total, s / 1000) for m, total, s in zip(infos, totals, seconds, strict=True)}


TICK = timedelta(microseconds=1)  # the store's time resolution: "just before" a timestamp


def _total_parts(start: datetime, end: datetime) -> list[tuple[str, datetime, datetime]]:
    """[start, end] cut into half-open parts: samples at the edges, minutes, hours in the middle; each read
    from the next coarser level where its own is gone (a range within a minute past the raw retention: the
    minute buckets it overlaps, as a chart of it draws)."""
    stop = end + TICK
    m1, m2 = _ceil(start, 60), max(_floor(stop, 60), start)
    parts = [(levels.FULL, start, stop)]
    if m1 < m2:
        h1, h2 = min(_ceil(m1, 3600), m2), max(_floor(m2, 3600), m1)
        if h1 >= h2:
            h1 = h2 = m2
        parts = [(levels.FULL, start, m1), (levels.MINUTE, m1, h1), (levels.HOUR, h1, h2),
                 (levels.MINUTE, h2, m2), (levels.FULL, m2, stop)]
    full_since = levels.available_since(levels.FULL)
    minute_since = levels.available_since(levels.MINUTE)
    out: list[tuple[str, datetime, datetime]] = []
    for level, lo, hi in parts:
        if lo >= hi:
            continue
        if level == levels.FULL and lo < full_since:
            level = levels.MINUTE  # the samples are gone: the partial minute is as close as it gets
        if level == levels.MINUTE and lo < minute_since:
            level = levels.HOUR
        if out and out[-1][0] == level:
            lo = out.pop()[1]  # one read, so a coarse bucket is never counted twice
        out.append((level, lo, hi))
    return out


def _floor(t: datetime, seconds: int) -> datetime:
    us = micros(t)
    return from_micros(us - us % (seconds * 1_000_000))


def _ceil(t: datetime, seconds: int) -> datetime:
    f = _floor(t, seconds)
    return f if f == t else f + timedelta(seconds=seconds)


@dataclass
class CounterSamples:
    """A counter's stored samples as written: each delta covers (ts - seconds, ts]."""

    ts: list[datetime]
    seconds: list[float]
    deltas: list[int | float]

    def began(self, i: int) -> datetime:
        """When delta i began to be counted: the poll before it."""
        return self.ts[i] - timedelta(seconds=self.seconds[i])

    def spanning(self) -> list[bool]:
        """Per delta: does its interval span an outage (store.breaks)? Its rate is then an average over
        the outage, no poll's reading: charts leave it out, and so do per-poll statistics."""
        ts_us = np.array([micros(t) for t in self.ts], np.int64)
        return breaks.spanning(np.array(self.seconds) * 1000, ts_us).tolist()


def counter_samples(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, CounterSamples]:
    """Full-resolution deltas with start <= ts <= end and their intervals, for window statistics.

    Samples of unknown interval carry no delta that a rate could use: left out.
    """
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], metrics), metrics) if m.counter]
    return _counter_samples(infos, read_full.read(server_id, infos, start, end))


def _counter_samples(infos: list[catalog.MetricInfo], found: dict[int, SampleArrays]) -> dict[str, CounterSamples]:
    out = {}
    for m in infos:
        pts = found.get(m.id, SampleArrays.empty())
        known = pts.iv > 0
        out[m.name] = CounterSamples(datetimes(pts.ts[known]), (pts.iv[known] / 1000.0).tolist(),
                                     pts.vals[known].tolist())
    return out


@dataclass
class CounterArrays:
    """CounterSamples as numpy arrays: times as Unix microseconds, each delta covering (ts - seconds, ts]."""

    ts: np.ndarray
    seconds: np.ndarray
    deltas: np.ndarray

    def spanning(self) -> np.ndarray:
        """CounterSamples.spanning, as a bool array."""
        return breaks.spanning(self.seconds * 1000, self.ts)


def counter_arrays(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, CounterArrays]:
    """counter_samples() without a datetime and a Python number per sample (a wide export reads millions)."""
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], metrics), metrics) if m.counter]
    return _counter_arrays(infos, read_full.read(server_id, infos, start, end))


def _counter_arrays(infos: list[catalog.MetricInfo], found: dict[int, SampleArrays]) -> dict[str, CounterArrays]:
    out = {}
    for m in infos:
        pts = found.get(m.id, SampleArrays.empty())
        known = pts.iv > 0
        out[m.name] = CounterArrays(pts.ts[known], pts.iv[known] / 1000.0, pts.vals[known])
    return out


@dataclass
class PollColumns:
    """Metrics of one server polled together (one source), as one matrix: for readers that treat every column
    alike. values[i, j] is metric names[j] at poll i, as stored (a counter's delta), NaN where not read."""

    names: list[str]
    counter: np.ndarray  # bool per column
    ts: np.ndarray  # int64 Unix microseconds, ascending
    iv: np.ndarray  # int64 interval in ms per poll, -1 where unknown
    values: np.ndarray  # float64, (len(ts), len(names))


@dataclass
class Polled:
    """poll_columns()'s answer: a matrix per source, and the metrics left out of them (a source whose
    polls do not line up, such as a poll stored twice, holds them: read them one by one)."""

    sources: list[PollColumns]
    left_out: list[str]


def poll_columns(server_id: int, metrics: list[str], start: datetime, end: datetime,
                 kept: HoursKept | None = None) -> Polled:
    """The full-resolution samples of the metrics (names or '*' patterns) with start <= ts <= end, one matrix
    per source holding any. kept: a reader going forward in time in ranges shorter than an hour passes the
    same one each time (each hour is decoded once, and the metrics are those matched at its first read)."""
    asked = (server_id, tuple(metrics))
    if kept is None or kept.matched[0] != asked:
        found = catalog.matching(catalog.server_metrics([server_id], metrics), metrics)
        if kept is not None:
            kept.matched = (asked, found)
    else:
        found = kept.matched[1]
    infos = {m.id: m for m in found}
    matrices, left_out = read_matrix.read(server_id, found, start, end, kept)
    return Polled([PollColumns([infos[i].name for i in m.ids], np.array([infos[i].counter for i in m.ids], bool),
                               m.ts, m.iv, m.values) for m in matrices],
                  sorted(infos[i].name for i in left_out))


def polls_judge() -> Callable[[datetime, datetime, int], bool]:
    """Whether series() answers a range (start, end, max_points) from the polls themselves, not from rollups:
    for many ranges, the levels' availability read once."""
    pick = levels.chooser()
    return lambda start, end, max_points: pick(start, end, max_points) == levels.FULL


def spanning(iv_ms: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Per poll of a counter (interval in ms, time in microseconds): does its delta span a hole? series()
    leaves its rate out (store.breaks)."""
    return breaks.spanning(iv_ms, ts)


def keeps_every_poll(ts: np.ndarray, max_points: int) -> bool:
    """Whether series() at full resolution returns every one of a series' polls at these times (not
    downsampled to max_points, holes included)."""
    holes = int(breaks.cuts(ts).sum())
    if not holes:
        return len(ts) <= max_points
    if 3 * holes <= max_points // 2:
        return len(ts) <= max_points - 3 * holes
    return len(ts) <= max_points // 2


def ranking_totals(server_id: int, metrics: list[str], start: datetime, end: datetime,
                   max_points: int) -> dict[str, int | float]:
    """Counters' totals over [start, end] for choosing which to draw, at the level a chart of max_points
    reads: the polls' deltas, or the rollup buckets' exact sums (those wholly inside the range: a partial
    bucket at each end is left out, which ranks as well). At the minute level the whole hours are summed
    from the hour buckets (exact sums of the same minutes: the same integers, 1/60 of the buckets)."""
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], metrics), metrics) if m.counter]
    level = levels.choose(start, end, max_points)
    if level != levels.FULL:
        return _rollup_totals(server_id, infos, level, start, end)
    found = {mid: [p.vals] for mid, p in read_full.read(server_id, infos, start, end).items()}
    kept = [m for m in infos if m.id in found and any(len(v) for v in found[m.id])]
    return {m.name: total for m, total in zip(kept, group_sums([found[m.id] for m in kept]), strict=True)}


def _rollup_totals(server_id: int, infos: list[catalog.MetricInfo], level: str, start: datetime,
                   end: datetime) -> dict[str, int | float]:
    """The sums of each metric's bucket sums wholly inside [start, end] at the level, read in parts: minutes at
    the edges and hours between them where the level is minutes (floats, whose sum depends on its order, are
    read whole). The integer sums of every metric and part are added up together (sums_by), not a metric at a
    time: a ranking reads ~380 counters."""
    h1, h2 = _ceil(start, 3600), _floor(end + TICK, 3600)
    if level != levels.MINUTE or h1 >= h2:
        parts = [read_rollups.read_sums(server_id, infos, level, start, end)]
    else:
        parts = [read_rollups.read_sums(server_id, infos, part, lo, hi, overlapping=False)
                 for part, lo, hi in ((levels.MINUTE, start, h1 - TICK), (levels.HOUR, h1, h2 - TICK),
                                      (levels.MINUTE, h2, end)) if lo <= hi]
    place = {m.id: k for k, m in enumerate(infos)}
    groups: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    others: dict[int, list[np.ndarray]] = {}  # metric id -> its sums of each part read() gave it apart
    for p in parts:
        groups.append(np.array([place[m.id] for m in p.ints], np.int64)[p.owner])
        vals.append(p.sums)
        for mid, b in p.others.items():
            others.setdefault(mid, []).append(b["sum"])
    floats = [m for m in infos if any(v.dtype.kind == "f" for v in others.get(m.id, []))]
    if floats and len(parts) > 1:
        others |= {mid: [b["sum"]] for mid, b in read_rollups.read(server_id, floats, level, start, end,
                                                                   sums_only=True).items()}
    apart_ids = {m.id for m in floats}
    for mid, arrays in others.items():  # integer sums a metric's other parts held
        if mid not in apart_ids:
            groups += [np.full(len(a), place[mid], np.int64) for a in arrays]
            vals += arrays
    totals, counts = sums_by(np.concatenate(groups), np.concatenate(vals), len(infos))
    apart = dict(zip([m.id for m in floats], group_sums([others[m.id] for m in floats]), strict=True))
    return {m.name: apart[m.id] if m.id in apart else totals[k] for k, m in enumerate(infos)
            if (m.id in apart and any(len(v) for v in others[m.id])) or (m.id not in apart and counts[k])}


def rollup_sums(server_id: int, metrics: list[str], start: datetime, end: datetime,
                level: str | None = None, overlapping: bool = False) -> dict[str, CounterSamples]:
    """Counters' rollup buckets wholly inside [start, end] as samples: each bucket's exact sum of deltas
    over the seconds its polls cover, stamped at the bucket's last microsecond (as a poll at its end);
    the finest level kept there unless one is given. overlapping: a counter with no bucket wholly inside
    keeps those the range overlaps, the buckets totals_and_seconds() sums there (a range within a minute).

    Where the polls themselves are gone (past the raw retention), what a total or a
    rate over a bucket can still be computed from, exactly. Unlike polls, a bucket's
    sum holds an outage's delta (the rollups keep no per-poll intervals to tell).
    """
    level = level or levels.finest_rollup(start)
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id], metrics), metrics) if m.counter]
    found = read_rollups.read(server_id, infos, level, start, end)
    width, lo, hi = read_rollups.WIDTH[level], micros(start), micros(end)
    out = {}
    for m in infos:
        b = found.get(m.id)
        if b is None:
            continue
        starts = b["idx"] * width
        inside = (starts >= lo) & (starts + width <= hi + 1)
        if overlapping and not read_rollups.holds_whole(width, lo, hi):
            inside = (starts + width > lo) & (starts <= hi)
        keep = (b["ms"] > 0) & inside
        seconds = (b["ms"][keep] / 1000.0).tolist()
        out[m.name] = CounterSamples(datetimes(starts[keep] + width - 1), seconds, b["sum"][keep].tolist())
    return out


def window_samples(server_id: int, metrics: list[str], start: datetime,
                   end: datetime) -> tuple[dict[str, CounterSamples], str]:
    """Counters' samples for a window's statistics, and what they are: its polls ("polls") while they are
    kept, else its rollup buckets ("1m" or "1h": a run older than the raw retention keeps its figures)."""
    level = levels.finest(start)
    if level == levels.FULL:
        return counter_samples(server_id, metrics, start, end), "polls"
    return rollup_sums(server_id, metrics, start, end, level), level


@dataclass
class Polls:
    """Some metrics' full-resolution samples over [start, end], read once: within(), counter_samples() and
    counter_arrays() of that range, and totals_and_seconds() of any range inside it, each from these samples
    (a run's figures read its polls once, not once per figure). Asking for a metric not read is an error."""

    server_id: int
    start: datetime
    end: datetime
    asked: frozenset[str]
    infos: list[catalog.MetricInfo]
    data: dict[int, SampleArrays]

    def covers(self, metrics: list[str]) -> bool:
        """Whether these names or patterns were read: each one asked, or a name an asked pattern matches."""
        patterns = list(self.asked)
        return all(name in self.asked or ("*" not in name and catalog.matching(
            [catalog.MetricInfo(0, self.server_id, name, False)], patterns)) for name in metrics)

    def _matching(self, metrics: list[str], counters: bool = False) -> list[catalog.MetricInfo]:
        if not self.covers(metrics):
            raise ValueError(f"store: {metrics} not all read with these polls")
        return [m for m in catalog.matching(self.infos, metrics) if m.counter or not counters]

    def within(self, metrics: list[str], mode: str = "rate") -> list[Series]:
        return _within(self.server_id, self._matching(metrics), self.data, self.start, mode)

    def series(self, metrics: list[str], max_points: int = 1200, mode: str = "rate") -> list[Series] | None:
        """series() of the range read where it reads the polls (levels.choose); None where it reads rollups."""
        if levels.choose(self.start, self.end, max_points) != levels.FULL:
            return None
        return _as_series([_line(self.server_id, m, _full_points(m, self.data.get(m.id, SampleArrays.empty()), mode),
                                 max_points) for m in self._matching(metrics)])

    def counter_samples(self, metrics: list[str]) -> dict[str, CounterSamples]:
        return _counter_samples(self._matching(metrics, counters=True), self.data)

    def counter_arrays(self, metrics: list[str]) -> dict[str, CounterArrays]:
        return _counter_arrays(self._matching(metrics, counters=True), self.data)

    def totals_and_seconds(self, metrics: list[str], start: datetime,
                           end: datetime) -> dict[str, tuple[int | float, float]]:
        """totals_and_seconds() of [start, end] inside the range read, summed from its samples: the same figures,
        as the rollups' sums are exact sums of the same polls (until the next compaction, a poll stored late in a
        compacted hour is counted here and not there), float counters excepted, read as that function reads them."""
        if start < self.start or end > self.end:
            raise ValueError("store: a total outside the polls read")
        infos = self._matching(metrics, counters=True)
        floats = [m.name for m in infos if self.data.get(m.id, SampleArrays.empty()).vals.dtype.kind == "f"]
        read = totals_and_seconds(self.server_id, floats, start, end) if floats else {}
        lo, hi = micros(start), micros(end)
        out = {}
        for m in infos:
            pts = self.data.get(m.id, SampleArrays.empty())
            a, b = np.searchsorted(pts.ts, [lo, hi + 1])
            ms = np.where(pts.iv[a:b] > 0, pts.iv[a:b], 0)
            out[m.name] = read.get(m.name) or (group_sums([[pts.vals[a:b]]])[0], group_sums([[ms]])[0] / 1000)
        return out


def polls(server_id: int, metrics: list[str], start: datetime, end: datetime) -> Polls:
    """The metrics' (names or '*' patterns) full-resolution samples with start <= ts <= end, for Polls' answers."""
    infos = catalog.matching(catalog.server_metrics([server_id], metrics), metrics)
    return Polls(server_id, start, end, frozenset(metrics), infos, read_full.read(server_id, infos, start, end))


def latest(server_ids: list[int], metrics: list[str]) -> dict[tuple[int, str], tuple[datetime, float]]:
    """The newest value (rate for counters) per server and metric."""
    out = {}
    for server_id, found in latest_by_server(server_ids, metrics).items():
        for m, (ts, value) in found.items():
            out[(server_id, m)] = (ts, value)
    return out


def latest_by_server(server_ids: list[int], metrics: list[str]) -> dict[int, dict[str, tuple[datetime, float]]]:
    """latest() grouped by server (every server given, those with nothing empty), read for all at once:
    a fleet's page makes the same few statements for 1,000 servers as for one."""
    found = read_full.latest_many(_by_server(server_ids, metrics))
    return {sid: {m.name: v for m, v in found.get(sid, {}).items()} for sid in server_ids}


def _by_server(server_ids: list[int], metrics: list[str]) -> dict[int, list[catalog.MetricInfo]]:
    """The servers' metrics matching the names or patterns, per server in matching() order, in one read."""
    out: dict[int, list[catalog.MetricInfo]] = {sid: [] for sid in server_ids}
    for m in catalog.matching(catalog.server_metrics(list(server_ids), metrics), metrics):
        out[m.server_id].append(m)
    return out


def metric_kinds(server_ids: list[int], metrics: list[str]) -> dict[tuple[int, str], str]:
    """Each (server id, metric) that series() answers for these names or '*' patterns, with its kind
    ("counter" | "gauge"), without reading a point."""
    return {(m.server_id, m.name): m.kind for ms in _by_server(server_ids, metrics).values() for m in ms}


def collected(server_id: int, names: list[str]) -> list[str]:
    """The names and '*' patterns of `names` that match a metric the server has collected, in their order."""
    names = [n for n in names if "\x00" not in n]  # PostgreSQL refuses a NUL outright; no metric has one
    found = catalog.server_metrics([server_id], names)
    return [n for n in names if catalog.matching(found, [n])]


def metric_names(server_id: int, pattern: str = "*") -> list[str]:
    if pattern == "*":  # every name (a page choosing its lines among them): no LIKE, nor a match of each
        return sorted(catalog.server_names(server_id))
    return sorted(m.name for m in catalog.matching(catalog.server_metrics([server_id], [pattern]), [pattern]))


def gaps(server_id: int, start: datetime, end: datetime) -> list[tuple[datetime, datetime, str]]:
    """Recorded holes overlapping [start, end], oldest first, including those not yet saved."""
    rows = Gap.objects.filter(server_id=server_id, start__lte=end, end__gte=start).order_by("start")
    out = [(g.start, g.end, g.reason) for g in rows]
    try:
        pending = buffer.pending_gaps()
    except redis.RedisError:  # Redis down: the pages draw what PostgreSQL holds rather than fail
        pending = []
    for sid, g_start, g_end, reason in pending:
        if sid == server_id and g_start <= end and g_end >= start:
            out.append((g_start, g_end, reason))
    return sorted(out)
