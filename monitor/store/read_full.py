"""Full-resolution reads: hot rows and compacted hours, merged transparently."""

from datetime import datetime

import numpy as np
from django.db import connection

from monitor.store import catalog, read_raw
from monitor.store.catalog import MetricInfo
from monitor.store.points import Points, concat, datetimes

# The newest hot rows of one server and source, for latest().
SELECT_NEWEST = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), {columns} "
    "FROM store_raw WHERE server_id = %s AND source_id = %s ORDER BY ts DESC LIMIT 6"
)


def read(server_id: int, metrics: list[MetricInfo], start: datetime, end: datetime) -> dict[int, Points]:
    """Points per metric id with start <= ts <= end."""
    if not metrics:
        return {}
    layouts = catalog.server_layouts([server_id])
    hot = read_raw.read(server_id, metrics, layouts, start, end)
    return {mid: concat([p]) for mid, p in hot.items()}


def latest(server_id: int, metrics: list[MetricInfo]) -> dict[MetricInfo, tuple[datetime, float]]:
    """The newest value (rate for counters) of each metric that has one."""
    if not metrics:
        return {}
    layouts = catalog.server_layouts([server_id])
    out = {}
    for source_id in sorted({lay.source_id for lay in layouts}):
        mine = [lay for lay in layouts if lay.source_id == source_id]
        exprs = [(m, read_raw.slot_expr(m.id, mine)) for m in metrics]
        exprs = [(m, e) for m, e in exprs if e is not None]
        if exprs:
            out.update(_newest(server_id, source_id, exprs))
    return out


def _newest(server_id, source_id, exprs) -> dict:
    sql = SELECT_NEWEST.format(columns=", ".join(e for _m, (e, _f) in exprs))
    with connection.cursor() as cur:
        cur.execute(sql, [server_id, source_id])
        rows = cur.fetchall()
    out = {}
    for col, (m, _e) in enumerate(exprs, start=2):
        for row in rows:
            value = _value(m, row[col], row[1])
            if value is not None:
                out[m] = (datetimes(np.array([row[0]], dtype=np.int64))[0], value)
                break
    return out


def _value(m: MetricInfo, v, interval_ms: int) -> float | None:
    if v is None:
        return None
    if m.counter:
        return v * 1000.0 / interval_ms if interval_ms > 0 else None
    return float(v)
