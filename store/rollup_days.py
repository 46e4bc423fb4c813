"""1-hour rollups, one row per server, metric and day, built once the day is over.

Compaction writes 1-minute rollups hour by hour and marks the day pending;
this step turns a closed day's 1-minute buckets into its 24 hour buckets in
one write (rewriting a day row every hour would bloat the table). Until then,
readers derive the hour buckets of pending days from the 1-minute rollups.
"""

from collections import defaultdict
from datetime import datetime, timedelta

from django.db import connection, transaction

from store import blocks, catalog, partitions, rollups
from store.points import micros

# Closed days still waiting for their 1-hour rollups.
PENDING = "SELECT server_id, day FROM store_pendingday WHERE day <= %s ORDER BY day, server_id"
# The 1-minute rollups of one server and day.
DAY_MINUTES = (
    "SELECT metric_id, (extract(epoch from period) * 1000000)::bigint, data FROM store_rollup_1m "
    "WHERE server_id = %s AND period >= %s AND period < %s ORDER BY metric_id, period"
)
# The same for some metrics only (one index range scan per metric, as in store.read_rollups).
DAY_MINUTES_OF = (
    "SELECT m.id, (extract(epoch from r.period) * 1000000)::bigint, r.data "
    "FROM unnest(%s::int[]) WITH ORDINALITY AS m(id, k) CROSS JOIN LATERAL ("
    "SELECT period, data FROM store_rollup_1m WHERE server_id = %s AND metric_id = m.id "
    "AND period >= %s AND period < %s OFFSET 0) r ORDER BY m.k, r.period"
)
DELETE_DAY = "DELETE FROM store_rollup_1h WHERE server_id = %s AND period = %s"
COPY_1H = "COPY store_rollup_1h (period, server_id, metric_id, data) FROM STDIN"
DONE = "DELETE FROM store_pendingday WHERE server_id = %s AND day = %s"
# A day is closed once its last hour is surely compacted.
SETTLE = timedelta(hours=1)


def roll_closed(now: datetime) -> int:
    """Write the 1-hour rollups of every pending day that is over; return how many days."""
    with connection.cursor() as cur:
        cur.execute(PENDING, [now - timedelta(days=1) - SETTLE])
        days = cur.fetchall()
    for server_id, day in days:
        roll_day(server_id, day)
    return len(days)


def roll_day(server_id: int, day: datetime) -> None:
    partitions.ensure(partitions.ROLLUP_1H, day)
    with transaction.atomic(), connection.cursor() as cur:
        hours = day_hours(cur, server_id, day)
        if hours:  # no 1-minute rollups left (expired): keep whatever 1-hour rows there are
            _replace_day(cur, server_id, day, hours)
        cur.execute(DONE, [server_id, day])


def _replace_day(cur, server_id: int, day: datetime, hours: dict[int, dict]) -> None:
    counters = {m.id for m in catalog.server_metrics([server_id]) if m.counter}
    cur.execute(DELETE_DAY, [server_id, day])
    with cur.cursor.copy(COPY_1H) as copy:
        for mid, b in hours.items():  # a gauge's rows keep no per-poll rates (store.compaction)
            kept = b if mid in counters else rollups.without_rates(b)
            copy.write_row((day, server_id, mid, blocks.encode_buckets(kept)))


def day_hours(cur, server_id: int, day: datetime, metric_ids: list[int] | None = None,
              relative: bool = True) -> dict[int, dict]:
    """Hour buckets per metric from the day's 1-minute rollups (numbered from the day, or the epoch)."""
    if metric_ids is None:
        cur.execute(DAY_MINUTES, [server_id, day, day + timedelta(days=1)])
    else:
        cur.execute(DAY_MINUTES_OF, [list(metric_ids), server_id, day, day + timedelta(days=1)])
    rows = defaultdict(list)
    origin = micros(day) if relative else 0
    for mid, period_us, data in cur.fetchall():
        rows[mid].append((data, (period_us - origin) // rollups.MINUTE_US))
    return {mid: rollups.rebucket(b, 60) for mid, b in blocks.decode_buckets_grouped(rows).items()}
