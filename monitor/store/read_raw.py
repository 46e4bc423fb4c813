"""Reading hot rows (store_raw): the requested slots only, picked by layout in SQL."""

from datetime import datetime

import numpy as np
from django.db import connection

from monitor.store.catalog import MetricInfo, ReadLayout
from monitor.store.points import Points

# The requested metrics of one server and source over a time range, oldest first.
SELECT_RAW = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), {columns} "
    "FROM store_raw WHERE server_id = %s AND source_id = %s AND ts >= %s AND ts <= %s ORDER BY ts"
)


def slot_expr(metric_id: int, layouts: list[ReadLayout]) -> tuple[str, bool] | None:
    """SQL picking the metric's slot in whichever layout a row has; (sql, is float)."""
    ints = [(lay.id, lay.int_ids.index(metric_id) + 1) for lay in layouts if metric_id in lay.int_ids]
    floats = [(lay.id, lay.float_ids.index(metric_id) + 1) for lay in layouts if metric_id in lay.float_ids]
    if not ints and not floats:
        return None
    cast = "::float8" if floats else ""
    whens = [f"WHEN {lid} THEN ivals[{k}]{cast}" for lid, k in ints]
    whens += [f"WHEN {lid} THEN fvals[{k}]" for lid, k in floats]
    return f"CASE layout_id {' '.join(whens)} END", bool(floats)


def read(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout],
         start: datetime, end: datetime) -> dict[int, Points]:
    """Points per metric id from the hot rows of one server."""
    out: dict[int, Points] = {}
    for source_id in sorted({lay.source_id for lay in layouts}):
        mine = [lay for lay in layouts if lay.source_id == source_id]
        exprs = [(m, slot_expr(m.id, mine)) for m in metrics]
        exprs = [(m, e) for m, e in exprs if e is not None]
        if exprs:
            out.update(_read_source(server_id, source_id, exprs, start, end))
    return out


def _read_source(server_id, source_id, exprs, start, end) -> dict[int, Points]:
    sql = SELECT_RAW.format(columns=", ".join(e for _m, (e, _f) in exprs))
    with connection.cursor() as cur:
        cur.execute(sql, [server_id, source_id, start, end])
        rows = cur.fetchall()
    if not rows:
        return {}
    ts = np.array([r[0] for r in rows], dtype=np.int64)
    iv = np.array([r[1] for r in rows], dtype=np.int64)
    out = {}
    for col, (m, (_e, is_float)) in enumerate(exprs, start=2):
        vals = [r[col] for r in rows]
        present = np.array([v is not None for v in vals], dtype=bool)
        if not present.any():
            continue
        dtype = np.float64 if is_float else np.int64
        arr = np.array([v for v in vals if v is not None], dtype=dtype)
        out[m.id] = Points(ts[present], arr, iv[present])
    return out
