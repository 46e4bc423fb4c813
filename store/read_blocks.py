"""Reading compacted hours (store_block + store_block_series) back into SampleArrays."""

from collections import defaultdict
from datetime import UTC, datetime

import numpy as np
from django.db import connection

from store import blocks
from store.array_params import int_array
from store.points import SampleArrays, micros

# Poll times of one server's compacted hours in a range.
SELECT_TIMES = (
    "SELECT source_id, (extract(epoch from hour) * 1000000)::bigint, n, times FROM store_block "
    "WHERE server_id = %s AND hour >= %s AND hour <= %s"
)
# The same of the sources whose values were read: a week holds every source's 168 hours, mostly of others.
SELECT_SOURCE_TIMES = SELECT_TIMES + " AND source_id = ANY(%s::smallint[])"
# Compacted values of some metrics of one server in a range.
# (One index range scan per metric, as in read_rollups.)
SELECT_SERIES = (
    "SELECT m.id, b.source_id, (extract(epoch from b.hour) * 1000000)::bigint, b.data "
    "FROM unnest(%s::int[]) WITH ORDINALITY AS m(id, k) CROSS JOIN LATERAL ("
    "SELECT source_id, hour, data FROM store_block_series WHERE server_id = %s AND metric_id = m.id "
    "AND hour >= %s AND hour <= %s OFFSET 0) b ORDER BY m.k, b.hour"
)
# The newest compacted hour of each metric, for latest().
SELECT_NEWEST = (
    "SELECT DISTINCT ON (metric_id) metric_id, source_id, (extract(epoch from hour) * 1000000)::bigint, data "
    "FROM store_block_series WHERE server_id = %s AND metric_id = ANY(%s::int[]) ORDER BY metric_id, hour DESC"
)
SELECT_ONE_TIMES = (
    "SELECT n, times FROM store_block WHERE server_id = %s AND source_id = %s "
    "AND hour = to_timestamp(%s / 1000000.0)"
)

# The same for many servers in one statement each: values per (server, metric) pair, poll times per
# (server, hour) of the servers that have values there.
SELECT_SERIES_MANY = (
    "SELECT p.sid, p.id, b.source_id, (extract(epoch from b.hour) * 1000000)::bigint, b.data "
    "FROM unnest(%s::int[], %s::int[], %s::timestamptz[], %s::timestamptz[]) WITH ORDINALITY AS p(sid, id, lo, hi, k) "
    "CROSS JOIN LATERAL (SELECT source_id, hour, data FROM store_block_series WHERE server_id = p.sid "
    "AND metric_id = p.id AND hour >= p.lo AND hour <= p.hi AND hour >= %s AND hour <= %s OFFSET 0) b "
    "ORDER BY p.k, b.hour"
)  # (the constant bounds, the windows' union, let the planner leave the other partitions out)
SELECT_TIMES_MANY = (
    "SELECT b.server_id, b.source_id, (extract(epoch from b.hour) * 1000000)::bigint, b.n, b.times "
    "FROM unnest(%s::int[], %s::timestamptz[], %s::timestamptz[]) AS p(sid, lo, hi) CROSS JOIN LATERAL ("
    "SELECT server_id, source_id, hour, n, times FROM store_block "
    "WHERE server_id = p.sid AND hour >= p.lo AND hour <= p.hi AND hour >= %s AND hour <= %s OFFSET 0) b"
)
SELECT_NEWEST_MANY = (
    "SELECT p.sid, b.metric_id, b.source_id, (extract(epoch from b.hour) * 1000000)::bigint, b.data "
    "FROM unnest(%s::int[], %s::int[]) WITH ORDINALITY AS p(sid, id, k) CROSS JOIN LATERAL ("
    "SELECT metric_id, source_id, hour, data FROM store_block_series WHERE server_id = p.sid "
    "AND metric_id = p.id ORDER BY hour DESC LIMIT 1) b ORDER BY p.k"
)
SELECT_SOME_TIMES = (
    "SELECT b.server_id, b.source_id, k.us, b.n, b.times "
    "FROM unnest(%s::int[], %s::int[], %s::bigint[]) AS k(sid, src, us) JOIN store_block b "
    "ON b.server_id = k.sid AND b.source_id = k.src AND b.hour = to_timestamp(k.us / 1000000.0)"
)


def hour_floor(t: datetime) -> datetime:
    return t.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def read(server_id: int, metric_ids: list[int], start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id with start <= ts <= end from the compacted hours."""
    if not metric_ids:
        return {}
    first = hour_floor(start)
    with connection.cursor() as cur:
        cur.execute(SELECT_SERIES, [int_array(metric_ids), server_id, first, end])
        rows = cur.fetchall()
        if not rows:
            return {}
        cur.execute(SELECT_SOURCE_TIMES, [server_id, first, end, sorted({r[1] for r in rows})])
        times = {(r[0], r[1]): (r[2], r[3]) for r in cur.fetchall()}
    return _decode(rows, times, (micros(start), micros(end)))


def newest(server_id: int, metric_ids: list[int]) -> dict[int, SampleArrays]:
    """The newest compacted hour of each metric."""
    if not metric_ids:
        return {}
    with connection.cursor() as cur:
        cur.execute(SELECT_NEWEST, [server_id, list(metric_ids)])
        rows = cur.fetchall()
        times = {}
        for _mid, source_id, hour_us, _data in rows:
            cur.execute(SELECT_ONE_TIMES, [server_id, source_id, hour_us])
            times[(source_id, hour_us)] = cur.fetchone()
    return _decode(rows, times)


def _decode(rows, times, window: tuple[int, int] | None = None) -> dict[int, SampleArrays]:
    """rows (metric_id, source_id, hour_us, data) ordered by metric and hour; window: only the polls with
    lo <= ts <= hi (Unix microseconds), as _clip() keeps them. A total's edges keep a few polls of an hour:
    only those are decoded of a counter's hour (blocks.decode_series_window), not its 360."""
    hours = list(dict.fromkeys(key for r in rows if (key := (r[1], r[2])) in times))
    ns = [times[key][0] for key in hours]
    decoded = blocks.decode_times_many([times[key][1] for key in hours], ns, [key[1] for key in hours])
    decoded_times = {key: (n, ts, iv) for key, n, (ts, iv) in zip(hours, ns, decoded, strict=True)}
    kept = [(mid, data, decoded_times[(source_id, hour_us)]) for mid, source_id, hour_us, data in rows
            if (source_id, hour_us) in decoded_times]
    if not kept:
        return {}
    first = {mid: i for i, mid in reversed(list(enumerate(k[0] for k in kept)))}
    kept.sort(key=lambda k: first[k[0]])  # each metric's rows together, in their order
    mids = [k[0] for k in kept]
    spans = _polls_in(kept, window) if window is not None else None
    if spans is None:
        series = blocks.decode_series_grouped(mids, [k[1] for k in kept], [k[2][0] for k in kept])
    else:
        series = blocks.decode_series_window(mids, [k[1] for k in kept], [k[2][0] for k in kept], spans)
        kept = [(mid, data, (b - a, ts[a:b], iv[a:b])) for (mid, data, (_n, ts, iv)), (a, b) in
                zip(kept, spans, strict=True)]
    ts = np.concatenate([k[2][1] for k in kept])  # every row's poll times, in row order
    iv = np.concatenate([k[2][2] for k in kept])
    out = {}
    at = 0
    for mid, (vals, present) in series.items():  # in row order: each metric's polls follow the last one's
        span = slice(at, at + len(present))
        out[mid] = SampleArrays(ts[span][present], vals, iv[span][present])
        at += len(present)
    if window is not None and spans is None:  # decoded whole: cut to the window
        out = {mid: _clip(p, *window) for mid, p in out.items()}
    return out


WINDOW_SHARE = 4  # polls are decoded by place only where the window holds under a quarter of the rows' polls


def _polls_in(kept: list[tuple], window: tuple[int, int]) -> list[list[int]] | None:
    """Each row's polls [a, b) with lo <= ts <= hi (its hour's, the same for every metric of its source); None
    where they are a quarter of the rows' polls or more: decoding every poll then costs less than by place."""
    found: dict[int, list[int]] = {}
    for _mid, _data, hour in kept:
        if id(hour) not in found:
            found[id(hour)] = np.searchsorted(hour[1], [window[0], window[1] + 1]).tolist()
    spans = [found[id(hour)] for _mid, _data, hour in kept]
    inside = sum(b - a for a, b in spans)
    return spans if WINDOW_SHARE * inside < sum(hour[0] for _mid, _data, hour in kept) else None


def _clip(p: SampleArrays, lo: int, hi: int) -> SampleArrays:
    a, b = np.searchsorted(p.ts, [lo, hi + 1])
    return SampleArrays(p.ts[a:b], p.vals[a:b], p.iv[a:b])




def read_many(wanted: dict[int, list[int]],
              windows: dict[int, tuple[datetime, datetime]]) -> dict[int, dict[int, SampleArrays]]:
    """read() of many servers (server id -> metric ids, each server over its window) in two statements."""
    if len(wanted) == 1:  # one server: no per-pair windows to pass (700 timestamps cost 3 ms to quote)
        (sid, ids), = wanted.items()
        alone = read(sid, ids, *windows[sid])
        return {sid: alone} if alone else {}
    sids, mids = _pairs(wanted)
    if not sids:
        return {}
    first = {sid: hour_floor(start) for sid, (start, _end) in windows.items()}
    with connection.cursor() as cur:
        los, his = [first[s] for s in sids], [windows[s][1] for s in sids]
        cur.execute(SELECT_SERIES_MANY, [sids, mids, los, his, min(los), max(his)])
        rows = cur.fetchall()
        if not rows:
            return {}
        found = sorted({r[0] for r in rows})
        los, his = [first[s] for s in found], [windows[s][1] for s in found]
        cur.execute(SELECT_TIMES_MANY, [found, los, his, min(los), max(his)])
        times = _times_by_server(cur.fetchall())
    out = {}
    for sid, mine in _rows_by_server(rows).items():
        lo, hi = micros(windows[sid][0]), micros(windows[sid][1])
        out[sid] = {mid: _clip(p, lo, hi) for mid, p in _decode(mine, times.get(sid, {})).items()}
    return out


def newest_many(wanted: dict[int, list[int]]) -> dict[int, dict[int, SampleArrays]]:
    """newest() of many servers (server id -> metric ids) in two statements."""
    sids, mids = _pairs(wanted)
    if not sids:
        return {}
    with connection.cursor() as cur:
        cur.execute(SELECT_NEWEST_MANY, [sids, mids])
        rows = cur.fetchall()
        if not rows:
            return {}
        keys = sorted({(r[0], r[2], r[3]) for r in rows})
        cur.execute(SELECT_SOME_TIMES, [[k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]])
        times = _times_by_server(cur.fetchall())
    return {sid: _decode(mine, times.get(sid, {})) for sid, mine in _rows_by_server(rows).items()}


def _pairs(wanted: dict[int, list[int]]) -> tuple[list[int], list[int]]:
    pairs = [(sid, mid) for sid, ids in wanted.items() for mid in ids]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _rows_by_server(rows: list[tuple]) -> dict[int, list[tuple]]:
    """(sid, metric_id, source_id, hour_us, data) -> per server the rows _decode reads, in the same order."""
    out: dict[int, list[tuple]] = defaultdict(list)
    for r in rows:
        out[r[0]].append(r[1:])
    return out


def _times_by_server(rows: list[tuple]) -> dict[int, dict]:
    """(sid, source_id, hour_us, n, times) -> per server {(source_id, hour_us): (n, times)}."""
    out: dict[int, dict] = defaultdict(dict)
    for sid, source_id, hour_us, n, blob in rows:
        out[sid][(source_id, hour_us)] = (n, blob)
    return out
