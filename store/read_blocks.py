"""Reading compacted hours (store_block + store_block_series) back into SampleArrays."""

from collections import defaultdict
from datetime import UTC, datetime

import numpy as np
from django.db import connection

from store import blocks
from store.points import SampleArrays, micros

# Poll times of one server's compacted hours in a range.
SELECT_TIMES = (
    "SELECT source_id, (extract(epoch from hour) * 1000000)::bigint, n, times FROM store_block "
    "WHERE server_id = %s AND hour >= %s AND hour <= %s"
)
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


def hour_floor(t: datetime) -> datetime:
    return t.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def read(server_id: int, metric_ids: list[int], start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id with start <= ts <= end from the compacted hours."""
    if not metric_ids:
        return {}
    first = hour_floor(start)
    with connection.cursor() as cur:
        cur.execute(SELECT_SERIES, [list(metric_ids), server_id, first, end])
        rows = cur.fetchall()
        if not rows:
            return {}
        cur.execute(SELECT_TIMES, [server_id, first, end])
        times = {(r[0], r[1]): (r[2], r[3]) for r in cur.fetchall()}
    out = _decode(rows, times)
    lo, hi = micros(start), micros(end)
    return {mid: _clip(p, lo, hi) for mid, p in out.items()}


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


def _decode(rows, times) -> dict[int, SampleArrays]:
    """rows (metric_id, source_id, hour_us, data) ordered by metric and hour."""
    decoded_times: dict = {}
    per_metric: dict[int, list] = defaultdict(list)
    for mid, source_id, hour_us, data in rows:
        key = (source_id, hour_us)
        if key not in times:
            continue
        if key not in decoded_times:
            n, blob = times[key]
            decoded_times[key] = (n, *blocks.decode_times(blob, n, hour_us))
        per_metric[mid].append((data, decoded_times[key]))
    out = {}
    for mid, hours in per_metric.items():
        vals, present = blocks.decode_series_many([h[0] for h in hours], [h[1][0] for h in hours])
        ts = np.concatenate([h[1][1] for h in hours])
        iv = np.concatenate([h[1][2] for h in hours])
        out[mid] = SampleArrays(ts[present], vals, iv[present])
    return out


def _clip(p: SampleArrays, lo: int, hi: int) -> SampleArrays:
    a, b = np.searchsorted(p.ts, [lo, hi + 1])
    return SampleArrays(p.ts[a:b], p.vals[a:b], p.iv[a:b])


