"""Reading hot rows (store_raw): decode the varint slots of each layout in one numpy pass."""

from collections import defaultdict
from datetime import datetime

import numpy as np
from django.db import connection

from store import codec
from store.catalog import MetricInfo, ReadLayout
from store.points import SampleArrays, concat

# Hot rows of one server and source over a time range, oldest first.
SELECT_RAW = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals "
    "FROM store_raw WHERE server_id = %s AND source_id = %s AND ts >= %s AND ts <= %s ORDER BY ts"
)
# The newest hot rows of one server and source, for latest().
SELECT_NEWEST = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals "
    "FROM store_raw WHERE server_id = %s AND source_id = %s ORDER BY ts DESC LIMIT %s"
)


def read(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout],
         start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id from the hot rows of one server."""
    return _per_source(server_id, metrics, layouts, SELECT_RAW, [start, end])


def newest(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout],
           rows: int = 6) -> dict[int, SampleArrays]:
    """SampleArrays per metric id from the newest hot rows (newest first)."""
    return _per_source(server_id, metrics, layouts, SELECT_NEWEST, [rows])


def _per_source(server_id, metrics, layouts, sql, params) -> dict[int, SampleArrays]:
    out: dict[int, SampleArrays] = {}
    ids = {m.id for m in metrics}
    for source_id in sorted({lay.source_id for lay in layouts}):
        mine = {lay.id: lay for lay in layouts if lay.source_id == source_id}
        if not any(ids & (set(lay.int_ids) | set(lay.float_ids)) for lay in mine.values()):
            continue
        with connection.cursor() as cur:
            cur.execute(sql, [server_id, source_id, *params])
            rows = cur.fetchall()
        if sql is SELECT_NEWEST:
            rows.reverse()  # oldest first, like every SampleArrays
        out.update(decode_rows(rows, mine, ids))
    return out


def decode_rows(rows: list[tuple], layouts: dict[int, ReadLayout], ids: set[int]) -> dict[int, SampleArrays]:
    """Rows (ts_us, interval_ms, layout_id, ivals, fvals) -> SampleArrays of the wanted metric ids."""
    groups = defaultdict(list)
    for r in rows:
        groups[r[2]].append(r)
    parts: dict[int, list[SampleArrays]] = defaultdict(list)
    for layout_id, group in groups.items():
        layout = layouts.get(layout_id)
        if layout is None:
            continue  # a layout of another source or a rolled-back test
        for mid, pts in _decode_group(group, layout, ids).items():
            parts[mid].append(pts)
    return {mid: concat(p) if len(p) > 1 else p[0] for mid, p in parts.items()}


def _decode_group(group: list[tuple], layout: ReadLayout, ids: set[int]) -> dict[int, SampleArrays]:
    ts = np.array([r[0] for r in group], dtype=np.int64)
    iv = np.array([r[1] for r in group], dtype=np.int64)
    out = {}
    wanted_ints = [(k, mid) for k, mid in enumerate(layout.int_ids) if mid in ids]
    if wanted_ints:
        vals, nulls = codec.decode(b"".join(bytes(r[3]) for r in group))
        vals, nulls = vals.reshape(len(group), -1), nulls.reshape(len(group), -1)
        for k, mid in wanted_ints:
            keep = ~nulls[:, k]
            if keep.any():
                out[mid] = SampleArrays(ts[keep], vals[keep, k], iv[keep])
    for k, mid in enumerate(layout.float_ids):
        if mid in ids:
            col = [r[4][k] if r[4] else None for r in group]
            keep = np.array([v is not None for v in col], dtype=bool)
            if keep.any():
                out[mid] = SampleArrays(ts[keep], np.array([v for v in col if v is not None], np.float64), iv[keep])
    return out
