"""Reading rollups: stored buckets of compacted hours, plus hot hours aggregated on the fly."""

from collections import defaultdict
from datetime import datetime

from django.db import connection

from store import blocks, catalog, pending_hours, read_raw, rollups
from store.catalog import MetricInfo
from store.points import micros

WIDTH = {"1m": rollups.MINUTE_US, "1h": rollups.HOUR_US}
ORIGIN = {"1m": rollups.HOUR_US, "1h": 24 * rollups.HOUR_US}  # a stored row's period
# Stored buckets of some metrics of one server in a range.
# (One index range scan per metric, OFFSET 0 keeping the subquery apart: with `metric_id = ANY(...)`,
# or a plain join, the planner may scan the whole server's range and filter.)
SELECT = (
    "SELECT m.id, (extract(epoch from r.period) * 1000000)::bigint, r.data "
    "FROM unnest(%s::int[]) WITH ORDINALITY AS m(id, k) CROSS JOIN LATERAL ("
    "SELECT period, data FROM {table} WHERE server_id = %s AND metric_id = m.id "
    "AND period >= to_timestamp(%s / 1000000.0) AND period <= %s OFFSET 0) r ORDER BY m.k, r.period"
)
TABLE = {"1m": "store_rollup_1m", "1h": "store_rollup_1h"}


def read(server_id: int, metrics: list[MetricInfo], level: str, start: datetime,
         end: datetime) -> dict[int, dict]:
    """Buckets per metric id, numbered from the Unix epoch, starting within [start, end]."""
    if not metrics:
        return {}
    width, origin = WIDTH[level], ORIGIN[level]
    lo, hi = micros(start), micros(end)
    with connection.cursor() as cur:
        cur.execute(SELECT.format(table=TABLE[level]), [[m.id for m in metrics], server_id, lo - lo % origin, end])
        rows = defaultdict(list)
        for mid, period_us, data in cur.fetchall():
            rows[mid].append((data, period_us // width))
        stored = {mid: [b] for mid, b in blocks.decode_buckets_grouped(rows).items()}
        if level == "1h":
            for mid, b in pending_hours.hours(cur, server_id, [m.id for m in metrics], start, end).items():
                stored.setdefault(mid, []).extend(b)
    hot = read_raw.read(server_id, metrics, catalog.server_layouts([server_id]), start, end)
    out = {}
    for m in metrics:
        parts = [rollups.aggregate(hot[m.id], width, 0)] if m.id in hot else []
        b = rollups.concat(parts + stored.get(m.id, []))
        starts = b["idx"] * width
        keep = (starts >= lo - lo % width) & (starts <= hi)
        out[m.id] = {k: v[keep] for k, v in b.items()}
    return out

