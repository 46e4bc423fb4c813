"""Many metrics of one server at full resolution as matrices: one per source, a row per poll, a column per metric.

A source's metrics are polled together, so they share the poll times: decoding
them as one matrix costs a few numpy passes per read instead of a few per metric
(a wide CSV export reads 700 metrics at a time). Every compacted hour's integer
series of every metric are decoded in one pass over their joined varints, and
each layout's hot rows in another.

A source whose rows cannot be put on one time axis (a poll stored both hot and
compacted, rows out of order) gets no matrix, and its metrics are left out of the
others': the caller reads them one by one (read_full), as it would any metric
missing here.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from store import blocks, catalog, codec, read_blocks, read_raw
from store.binary_params import fetch_all
from store.catalog import MetricInfo, ReadLayout
from store.points import micros

# Compacted values of some metrics of one server in a range, and the poll times of its hours
# (read_blocks' statements, with the arrays bound in binary).
SELECT_SERIES = read_blocks.SELECT_SERIES.replace("%s", "%b")
SELECT_TIMES = read_blocks.SELECT_TIMES.replace("%s", "%b")


@dataclass
class PollMatrix:
    """Some metrics of one source at its polls: values[i, j] is metric ids[j] at poll i, NaN if not read."""

    source_id: int
    ids: list[int]
    ts: np.ndarray  # int64 microseconds, ascending
    iv: np.ndarray  # int64 interval in ms, -1 where unknown
    values: np.ndarray  # float64, (len(ts), len(ids))


class HoursKept:
    """The last compacted hour a reader moving forward in time has read, decoded: its next range mostly
    starts in that hour (a wide export reads an hour in several chunks), so it is decoded once."""

    def __init__(self) -> None:
        self.asked: tuple = ()
        self.hour = -1  # Unix microseconds of the hour kept
        self.matrices: dict[int, PollMatrix] = {}  # by source
        self.matched: tuple = ((), [])  # what the reader asked, and the metrics it matched at its first read

    def take(self, asked: tuple, hour: int) -> dict[int, PollMatrix]:
        """The matrices kept of this hour for the same metrics asked, if any."""
        return self.matrices if (asked, hour) == (self.asked, self.hour) else {}

    def keep(self, asked: tuple, hour: int, matrices: dict[int, PollMatrix]) -> None:
        self.asked, self.hour, self.matrices = asked, hour, matrices


def read(server_id: int, metrics: list[MetricInfo], start: datetime, end: datetime,
         kept: HoursKept | None = None) -> tuple[list[PollMatrix], set[int]]:
    """The metrics' samples with start <= ts <= end, one matrix per source holding any; and the ids of those
    left out of every matrix (held by a source whose polls do not line up)."""
    ids = {m.id for m in metrics}
    if not ids:
        return [], set()
    pairs = read_raw.sources_holding(catalog.server_layouts([server_id]), {server_id: ids})
    hot = read_raw.rows_many(pairs, {server_id: (start, end)}, {server_id: ids})
    old = _compacted(server_id, sorted(ids), start, end, kept or HoursKept())
    out: list[PollMatrix] = []
    left_out: set[int] = set()
    for source_id in sorted({p[1] for p in pairs} | set(old)):
        parts = [p for p in (*old.get(source_id, []), _hot((server_id, source_id), hot, pairs, ids)) if p is not None]
        found = _joined(parts, source_id, micros(start), micros(end)) if parts else None
        if found is None:
            left_out.update(mid for p in parts for mid in p.ids)
        elif len(found.ts):
            out.append(found)
    return ([_without(m, left_out) for m in out] if left_out else out), left_out


def _without(m: PollMatrix, ids: set[int]) -> PollMatrix:
    """m without the columns of these metrics (also held by a source left out: read them one by one)."""
    keep = [j for j, mid in enumerate(m.ids) if mid not in ids]
    return PollMatrix(m.source_id, [m.ids[j] for j in keep], m.ts, m.iv, m.values[:, keep])


def _compacted(server_id: int, ids: list[int], start: datetime, end: datetime,
               kept: HoursKept) -> dict[int, list[PollMatrix]]:
    """The compacted hours of the metrics, as matrices per source (whole hours: clipped by _joined); the first
    hour from `kept` if it is there, and the last one left there."""
    first = read_blocks.hour_floor(start)
    asked = (server_id, tuple(ids))
    out = {source_id: [m] for source_id, m in kept.take(asked, micros(first)).items()}
    if out:
        first += timedelta(hours=1)
        if first > end:
            return out  # the range lies in the hour kept
    rows = fetch_all(SELECT_SERIES, [ids, server_id, first, end])
    if not rows:
        return out
    times = {(r[0], r[1]): (r[2], r[3]) for r in fetch_all(SELECT_TIMES, [server_id, first, end])}
    by_source: dict[int, list[tuple]] = defaultdict(list)
    for mid, source_id, hour_us, data in rows:
        if (source_id, hour_us) in times:
            by_source[source_id].append((mid, hour_us, data))
    found = {source_id: _hours(source_id, mine, times) for source_id, mine in by_source.items()}
    last = max(r[2] for r in rows)
    kept.keep(asked, last, {source_id: _from(m, last) for source_id, m in found.items() if m.ts[-1] >= last})
    for source_id, m in found.items():
        out.setdefault(source_id, []).append(m)
    return out


def _from(m: PollMatrix, us: int) -> PollMatrix:
    """A copy of m's rows from us on."""
    a = int(np.searchsorted(m.ts, us))
    return PollMatrix(m.source_id, m.ids, m.ts[a:].copy(), m.iv[a:].copy(), m.values[a:].copy())


def _hours(source_id: int, rows: list[tuple], times: dict) -> PollMatrix:
    """One source's compacted hours: (metric id, hour, series blob) rows and each hour's (n, times blob)."""
    hours = sorted({r[1] for r in rows})
    polls = {h: (times[(source_id, h)][0], *blocks.decode_times(times[(source_id, h)][1],
                                                                  times[(source_id, h)][0], h)) for h in hours}
    first_row = dict(zip(hours, np.cumsum([0] + [polls[h][0] for h in hours]).tolist(), strict=False))
    ids = sorted({r[0] for r in rows})
    col = {mid: j for j, mid in enumerate(ids)}
    total = sum(polls[h][0] for h in hours)
    values = np.full((total, len(ids)), np.nan)
    ints = []
    for mid, hour, data in rows:
        kind, body = blocks.unpack(data)
        n = polls[hour][0]
        if kind == blocks.FLOAT:
            vals, present = blocks.decode_series(data, n)
            values[first_row[hour] + np.flatnonzero(present), col[mid]] = vals
        else:
            ints.append((body, n, kind == blocks.INT_DELTA, first_row[hour], col[mid]))
    if ints:
        _scatter_ints(values, ints)
    ts = np.concatenate([polls[h][1] for h in hours])
    iv = np.concatenate([polls[h][2] for h in hours])
    return PollMatrix(source_id, ids, ts, iv, values)


def _scatter_ints(values: np.ndarray, series: list[tuple]) -> None:
    """Decode integer series blobs (body, n, as differences, first row, column) in one pass into values."""
    vals, nulls = codec.decode(b"".join(s[0] for s in series))
    counts = np.array([s[1] for s in series])
    present = ~nulls
    deltas = np.array([s[2] for s in series])
    if deltas.any():  # a gauge's hour: first value, then differences of its present values
        c = np.cumsum(np.where(present, vals, 0))
        starts = np.cumsum(counts) - counts
        base = np.where(starts > 0, c[np.maximum(starts - 1, 0)], 0)
        vals = np.where(np.repeat(deltas, counts), c - np.repeat(base, counts), vals)
    place = np.arange(len(vals)) - np.repeat(np.cumsum(counts) - counts, counts)  # the poll within its hour
    rows = np.repeat(np.array([s[3] for s in series]), counts) + place
    cols = np.repeat(np.array([s[4] for s in series]), counts)
    values[rows[present], cols[present]] = vals[present]


def _hot(pair: read_raw.Pair, hot: dict, pairs: dict[read_raw.Pair, dict[int, ReadLayout]],
         ids: set[int]) -> PollMatrix | None:
    """One source's hot rows as a matrix: each layout's integer slots decoded in one pass."""
    rows = hot.get(pair)
    if not rows:
        return None
    layouts = pairs[pair]
    wanted = sorted({mid for lay in layouts.values() for mid in lay.int_ids + lay.float_ids if mid in ids})
    col = {mid: j for j, mid in enumerate(wanted)}
    values = np.full((len(rows), len(wanted)), np.nan)
    by_layout: dict[int, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_layout[r[2]].append(i)
    keep = np.ones(len(rows), bool)
    for layout_id, at in by_layout.items():
        layout = layouts.get(layout_id)
        if layout is None:
            keep[at] = False  # a layout of another source or a rolled-back test
            continue
        _fill_layout(values, np.array(at), [rows[i] for i in at], layout, col)
    ts = np.array([r[0] for r in rows], np.int64)
    iv = np.array([r[1] for r in rows], np.int64)
    return PollMatrix(pair[1], wanted, ts[keep], iv[keep], values[keep])


def _fill_layout(values: np.ndarray, at: np.ndarray, rows: list[tuple], layout: ReadLayout,
                 col: dict[int, int]) -> None:
    """The wanted slots of rows sharing one layout into values' rows `at`."""
    slots = [(k, col[mid]) for k, mid in enumerate(layout.int_ids) if mid in col]
    if slots:
        vals, nulls = codec.decode(b"".join(bytes(r[3]) for r in rows))
        vals, nulls = vals.reshape(len(rows), -1), nulls.reshape(len(rows), -1)
        k, j = np.array(slots).T
        found = vals[:, k].astype(np.float64)
        found[nulls[:, k]] = np.nan
        values[at[:, None], j] = found
    slots = [(k, col[mid]) for k, mid in enumerate(layout.float_ids) if mid in col]
    if slots:
        k, j = np.array(slots).T
        floats = np.array([r[4] if r[4] else [None] * len(layout.float_ids) for r in rows], np.float64)
        values[at[:, None], j] = floats[:, k]


def _joined(parts: list[PollMatrix], source_id: int, lo: int, hi: int) -> PollMatrix | None:
    """The parts (compacted, then hot) on one time axis within [lo, hi]; None if their polls overlap."""
    ids = sorted({mid for p in parts for mid in p.ids})
    if len(parts) == 1 and parts[0].ids == ids:
        whole = parts[0]
    else:
        col = {mid: j for j, mid in enumerate(ids)}
        values = np.full((sum(len(p.ts) for p in parts), len(ids)), np.nan)
        at = 0
        for p in parts:
            values[at:at + len(p.ts), [col[mid] for mid in p.ids]] = p.values
            at += len(p.ts)
        whole = PollMatrix(source_id, ids, np.concatenate([p.ts for p in parts]),
                           np.concatenate([p.iv for p in parts]), values)
    if len(whole.ts) > 1 and not (whole.ts[1:] > whole.ts[:-1]).all():
        return None
    a, b = np.searchsorted(whole.ts, [lo, hi + 1])
    return PollMatrix(source_id, ids, whole.ts[a:b], whole.iv[a:b], whole.values[a:b])
