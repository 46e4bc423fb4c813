"""A chunk's columns a source at a time: the metrics of a server's source read at every poll of the chunk are
bucketed together, in one pass over the store's matrix of them (query.poll_columns).

The figures are those series.read_columns computes one column at a time, from the same samples summed in the
same order. A column this cannot do is left to it: a metric missing at some poll (a counter: at some poll
with a known interval, the polls its deltas are read from), one stored by two sources, a counter whose polls
begin after the chunk does (its rollups come first), a gauge that series() would read from rollups or
downsample.
"""

import math
from collections import Counter
from datetime import datetime, timedelta

import numpy as np

from dashboards.export import grid
from dashboards.export.grid import Grid
from dashboards.export.params import SeriesExport
from dashboards.export.units import scale
from store import query
from store.points import from_micros
from store.query import TICK

ROLLED_AT_LEAST = timedelta(minutes=1)  # the narrowest rollup bucket: room for one before a counter's polls

Key = tuple[int, str]  # (server id, metric)
NONE = np.zeros((0, 0, 0))


class Carry:
    """What an export keeps from one chunk to the next: its columns' names by server, per server what the
    store keeps decoded, and the judge of which ranges series() reads from the polls (it lists the store's
    partitions once)."""

    def __init__(self, cols: list[tuple[Key, str]]) -> None:
        self.wanted: dict[int, set[str]] = {}
        for (server_id, metric), _kind in cols:
            self.wanted.setdefault(server_id, set()).add(metric)
        self.gauges = any(kind == "gauge" for _key, kind in cols)
        self.kept: dict[int, query.HoursKept] = {}
        self.reads_polls = query.polls_judge()


Block = tuple[list[Key], np.ndarray]  # columns, and their (buckets, columns, parts) values


def columns(export: SeriesExport, grids: dict[int, Grid], k0: int, k1: int, lo: datetime, hi: datetime,
            carry: Carry) -> list[Block]:
    """The columns done here (of those carry was made for), in blocks: each column's value, then min and max,
    then seconds covered."""
    max_points = math.ceil((hi - lo).total_seconds()) + 2  # as series.series_points asks
    polls = carry.gauges and carry.reads_polls(lo, hi, max_points)
    out: list[Block] = []
    for server_id, names in carry.wanted.items():
        kept = carry.kept.setdefault(server_id, query.HoursKept())
        found = query.poll_columns(server_id, export.metrics, lo, hi, kept).sources
        once = Counter(name for m in found for name in m.names)
        for m in found:
            mine = [j for j, name in enumerate(m.names) if name in names and once[name] == 1]
            every = ~np.isnan(m.values).any(axis=0)  # read at every poll
            counted = ~np.isnan(m.values[m.iv > 0]).any(axis=0)  # at every poll a counter's delta is used from
            counters = [j for j in mine if m.counter[j] and counted[j]]
            gauges = [j for j in mine if not m.counter[j] and every[j]] \
                if polls and query.keeps_every_poll(m.ts, max_points) else []
            g = grids[server_id]
            for js, block in (_counters(export, g, k0, k1, lo, m, counters), _gauges(export, g, k0, k1, m, gauges)):
                if js:
                    out.append(([(server_id, m.names[j]) for j in js], block))
    return out


def first_points(export: SeriesExport, carry: Carry, start: datetime, end: datetime,
                 max_points: int) -> dict[int, int] | None:
    """Each server's first point (Unix microseconds) among the series series() gives over [start, end] at
    max_points, from the poll matrices; None if a server's cannot be told that way (series() answers then).

    A gauge's (or a delta's) first point is its first sample; a counter's rate's, the first poll whose
    interval is known and spans no hole, judged on the counter's own samples: so only counters read at
    every poll of their source are done here. None also where series() would read rollups or downsample.
    """
    if not carry.reads_polls(start, end, max_points):
        return None
    out: dict[int, int] = {}
    for server_id in carry.wanted:
        found = query.poll_columns(server_id, export.metrics, start, end,
                                   carry.kept.setdefault(server_id, query.HoursKept()))
        names = [name for m in found.sources for name in m.names]
        if found.left_out or len(names) != len(set(names)):
            return None
        firsts = [_first_point(m, export.mode == "rate", max_points) for m in found.sources]
        if any(f is None for f in firsts):
            return None
        known = [f for f in firsts if f is not None and f >= 0]
        if known:
            out[server_id] = min(known)
    return out


def _first_point(m: query.PollColumns, rates: bool, max_points: int) -> int | None:
    """The first point of m's columns as series() gives them (-1: none has one); None if not told here."""
    present = ~np.isnan(m.values)
    if len(m.ts) > max_points // 2:
        return None  # series() might downsample the first point away
    counted = m.counter & present.any(axis=0) if rates else np.zeros(len(m.names), bool)
    if not present[:, counted].all():
        return None
    plain = present.any(axis=0) & ~counted
    firsts = [int(m.ts[np.argmax(present[:, plain].any(axis=1))])] if plain.any() else []
    if counted.any():
        kept = np.flatnonzero((m.iv > 0) & ~query.spanning(m.iv, m.ts))
        firsts += [int(m.ts[kept[0]])] if len(kept) else []
    return min(firsts, default=-1)


def _counters(export: SeriesExport, g: Grid, k0: int, k1: int, lo: datetime, m: query.PollColumns,
              js: list[int]) -> tuple[list[int], np.ndarray]:
    """Counters' columns from their polls' deltas, as series.counter_deltas and grid.counter_buckets make them."""
    known = m.iv > 0
    if not js or not known.any():
        return [], NONE
    samples = query.CounterArrays(m.ts[known], m.iv[known] / 1000.0, m.values[known][:, js])
    began = from_micros(int(samples.ts[0])) - timedelta(seconds=float(samples.seconds[0]))
    if began - TICK - lo >= ROLLED_AT_LEAST:
        return [], NONE  # rollup buckets come before these polls: series.counter_deltas joins them
    keep = ~samples.spanning()
    factors = np.array([scale(m.names[j]) for j in js])
    parts = grid.counter_matrix(g, k0, k1, samples.ts[keep], samples.seconds[keep], samples.deltas[keep] * factors,
                                export.mode == "rate", export.minmax, export.seconds)
    return js, np.stack(parts, axis=2)


def _gauges(export: SeriesExport, g: Grid, k0: int, k1: int, m: query.PollColumns,
            js: list[int]) -> tuple[list[int], np.ndarray]:
    """Gauges' columns from their values, as series.series_points and grid.bucketize make them."""
    if not js:
        return [], NONE
    factors = np.array([scale(m.names[j]) for j in js])
    parts = grid.bucketize_matrix(g, k0, k1, m.ts, m.values[:, js] * factors, export.minmax)
    return js, np.stack(parts, axis=2)
