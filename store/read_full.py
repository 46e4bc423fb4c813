"""Full-resolution reads: hot rows and compacted hours, merged transparently.

The many-server forms read every server in the same few statements (a fleet page
asks for 1,000 servers at once): the catalog, the hot rows of every (server, source)
pair, the compacted hours; the per-server forms are the same with one server.
"""

from datetime import UTC, datetime

import numpy as np

from store import breaks, catalog, codec, read_blocks, read_raw
from store.catalog import MetricInfo, ReadLayout
from store.points import SampleArrays, concat, from_micros

Latest = dict[MetricInfo, tuple[datetime, float]]


def read(server_id: int, metrics: list[MetricInfo], start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id with start <= ts <= end."""
    return read_many({server_id: metrics}, {server_id: (start, end)}).get(server_id, {})


def read_many(by_server: dict[int, list[MetricInfo]],
              windows: dict[int, tuple[datetime, datetime]]) -> dict[int, dict[int, SampleArrays]]:
    """read() of many servers, each over its own window (start, end): server id -> SampleArrays per
    metric id, in four statements."""
    by_server = {sid: ms for sid, ms in by_server.items() if ms}
    if not by_server:
        return {}
    wanted = {sid: {m.id for m in ms} for sid, ms in by_server.items()}
    pairs = read_raw.sources_holding(catalog.server_layouts(list(by_server)), wanted)
    rows = read_raw.rows_many(pairs, windows, wanted)
    compacted = read_blocks.read_many({sid: [m.id for m in ms] for sid, ms in by_server.items()}, windows)
    hots: dict[int, dict[int, SampleArrays]] = {sid: {} for sid in by_server}
    for pair, mine in pairs.items():  # by source within a server: a later source's samples win, as before
        if pair in rows:
            hots[pair[0]].update(read_raw.decode_rows(rows[pair], mine, wanted[pair[0]]))
    out = {}
    for sid, hot in hots.items():
        old = compacted.get(sid, {})
        out[sid] = {mid: concat([p for p in (old.get(mid), hot.get(mid)) if p is not None])
                    for mid in set(hot) | set(old)}
    return out


def latest(server_id: int, metrics: list[MetricInfo]) -> Latest:
    """The newest value (rate for counters) of each metric that has one."""
    return latest_many({server_id: metrics}).get(server_id, {})


def latest_many(by_server: dict[int, list[MetricInfo]]) -> dict[int, Latest]:
    """latest() of many servers: server id -> {metric: (time, value)} in each server's metric order.

    The hot rows of every (server, source) pair in one statement; each pair's rows decoded once and,
    where they share one layout (the usual case), every integer slot valued at once.
    """
    by_server = {sid: ms for sid, ms in by_server.items() if ms}
    if not by_server:
        return {}
    wanted = {sid: {m.id for m in ms} for sid, ms in by_server.items()}
    pairs = read_raw.sources_holding(catalog.server_layouts(list(by_server)), wanted)
    rows = read_raw.newest_rows_many(list(pairs), datetime.now(UTC))
    info = {m.id: m for ms in by_server.values() for m in ms}
    values: dict[int, dict[int, tuple[int, float]]] = {sid: {} for sid in by_server}
    seen: dict[int, set[int]] = {sid: set() for sid in by_server}
    ints = _ints_decoded({pair: rows[pair] for pair in pairs if pair in rows and _whole_ints(
        rows[pair], pairs[pair], wanted[pair[0]])})
    for pair in pairs:  # by source within a server
        if pair not in rows:
            continue
        found, valued = _pair_latest(rows[pair], pairs[pair], wanted[pair[0]], info, ints.get(pair))
        mine = values[pair[0]]
        for mid in found & mine.keys():
            del mine[mid]  # a metric of two sources: the later source's samples win, as before
        seen[pair[0]] |= found
        mine.update(valued)
    missing = {sid: [m.id for m in ms if m.id not in seen[sid]] for sid, ms in by_server.items()}
    for sid, in_blocks in read_blocks.newest_many({sid: ids for sid, ids in missing.items() if ids}).items():
        for mid, pts in in_blocks.items():
            newest = _newest(info[mid], pts)
            if newest is not None:
                values[sid][mid] = newest
    stamps: dict[int, datetime] = {}
    return {sid: {m: (_stamp(stamps, values[sid][m.id][0]), values[sid][m.id][1])
                  for m in ms if m.id in values[sid]} for sid, ms in by_server.items()}


def _one_layout(rows: list[tuple], layouts: dict[int, ReadLayout]) -> ReadLayout | None:
    """The layout every row of a pair shares, None where they differ (or it is unknown)."""
    layout = layouts.get(rows[0][2]) if rows else None
    return None if layout is None or any(r[2] != layout.id for r in rows) else layout


def _whole_ints(rows: list[tuple], layouts: dict[int, ReadLayout], ids: set[int]) -> bool:
    """_pair_latest decodes the pair's integer slots at once: its rows share a layout holding a wanted one."""
    layout = _one_layout(rows, layouts)
    return layout is not None and any(mid in ids for mid in layout.int_ids)


def _ints_decoded(rows_by_pair: dict[tuple, list[tuple]]) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """codec.decode() of each pair's rows' integer codes (values, nulls), every pair's in one pass: a pair's
    few rows cost what a dozen numpy calls cost, and a fleet's page has 300 pairs, its CSV 3,000."""
    chunks = [b"".join(bytes(r[3]) for r in rows) for rows in rows_by_pair.values()]
    data = b"".join(chunks)
    vals, nulls = codec.decode(data)
    # Each chunk is whole codes: its codes are those ending (a byte < 0x80) before its last byte's end.
    code_ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) < 0x80)
    cuts = np.searchsorted(code_ends, np.cumsum([len(c) for c in chunks])).tolist()
    return {pair: (vals[a:z], nulls[a:z]) for pair, a, z in zip(rows_by_pair, [0, *cuts], cuts, strict=False)}


def _pair_latest(rows: list[tuple], layouts: dict[int, ReadLayout], ids: set[int], info: dict[int, MetricInfo],
                 ints: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[set[int], dict[int, tuple[int, float]]]:
    """(ids with a sample in the rows, {id: (ts_us, value)} of those with a newest value) of one pair.
    ints: the rows' integer codes decoded (_ints_decoded), where they are."""
    layout = _one_layout(rows, layouts)
    if layout is None:
        return _each_latest(read_raw.decode_rows(rows, layouts, ids), info)
    cols = [(k, mid) for k, mid in enumerate(layout.int_ids) if mid in ids]
    rest = ids & set(layout.float_ids)
    found: set[int] = set()
    valued: dict[int, tuple[int, float]] = {}
    if cols:
        vals, nulls = ints if ints is not None else codec.decode(b"".join(bytes(r[3]) for r in rows))
        vals, nulls = vals.reshape(len(rows), -1), nulls.reshape(len(rows), -1)
        slots = np.array([k for k, _ in cols])
        present = ~nulls[:, slots]
        whole = present.all(axis=0)  # in every row: they share the rows' times, valued below at once
        for j in np.flatnonzero(~whole & present.any(axis=0)).tolist():
            rest.add(cols[j][1])
        found.update(cols[j][1] for j in np.flatnonzero(whole).tolist())
        valued.update(_whole_latest(rows, vals[:, slots[whole]], [cols[j][1] for j in np.flatnonzero(whole)], info))
    if rest:
        f, v = _each_latest(read_raw.decode_rows(rows, layouts, rest), info)
        found |= f
        valued.update(v)
    return found, valued


def _whole_latest(rows: list[tuple], vals: np.ndarray, mids: list[int],
                  info: dict[int, MetricInfo]) -> dict[int, tuple[int, float]]:
    """The newest values of integer slots present in every row, as _newest() finds each one."""
    ts = np.array([r[0] for r in rows], dtype=np.int64)
    iv = np.array([r[1] for r in rows], dtype=np.int64)
    counter = np.array([info[mid].counter for mid in mids], dtype=bool)
    gauges = np.flatnonzero(~counter).tolist()
    at = int(ts[-1])
    out = {mids[j]: (at, v) for j, v in zip(gauges, vals[-1, gauges].astype(np.float64).tolist(), strict=True)}
    row = _counter_row(ts, iv)
    if row is not None:
        counters = np.flatnonzero(counter).tolist()
        rates = vals[row, counters].astype(np.float64) * 1000.0 / iv[row]
        at = int(ts[row])
        out.update({mids[j]: (at, v) for j, v in zip(counters, rates.tolist(), strict=True)})
    return out


def _counter_row(ts: np.ndarray, iv: np.ndarray) -> int | None:
    """The row whose delta gives a counter's newest rate: the newest with a known interval, unless a
    delta spanning a hole comes first (the outage's average is no reading of now)."""
    spans = breaks.spanning(iv, ts)
    for k in range(len(ts) - 1, -1, -1):
        if spans[k]:
            return None
        if iv[k] > 0:
            return k
    return None


def _each_latest(found: dict[int, SampleArrays],
                 info: dict[int, MetricInfo]) -> tuple[set[int], dict[int, tuple[int, float]]]:
    valued = {}
    for mid, pts in found.items():
        newest = _newest(info[mid], pts)
        if newest is not None:
            valued[mid] = newest
    return set(found), valued


def _newest(m: MetricInfo, pts: SampleArrays) -> tuple[int, float] | None:
    """(ts_us, value) of the newest reading of one metric's samples, if it has one."""
    if not len(pts):
        return None
    spans = breaks.spanning(pts.iv, pts.ts) if m.counter else np.zeros(len(pts), dtype=bool)
    for k in range(len(pts) - 1, -1, -1):
        if spans[k]:
            return None  # the newest delta covers an outage: its rate is the outage's average, no reading of now
        value = _value(m, pts.vals[k].item(), int(pts.iv[k]))
        if value is not None:
            return int(pts.ts[k]), value
    return None


def _stamp(cache: dict[int, datetime], us: int) -> datetime:
    found = cache.get(us)
    if found is None:
        found = cache[us] = from_micros(us)
    return found


def _value(m: MetricInfo, v, interval_ms: int) -> float | None:
    if m.counter:
        return v * 1000.0 / interval_ms if interval_ms > 0 else None
    return float(v)
