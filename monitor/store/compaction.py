"""Compaction of closed hours: hot rows become per-metric hour blocks, plus rollups.

For each hot partition (one hour) that is closed, in one transaction: lock it
against writers, read it, merge with what an earlier compaction of that hour
stored (late samples, e.g. from the buffer after an outage), write the
blocks and the 1-minute / 1-hour rollups, and empty it. Values read back
through the query API are unchanged (tests/test_compaction.py).
"""

from collections import defaultdict
from datetime import datetime, timedelta

import numpy as np
from django.db import connection, transaction

from monitor.store import blocks, catalog, config, partitions, read_raw, rollups
from monitor.store.points import Points, concat, micros

# Keep writers out of the hour while we move it (readers may go on).
LOCK_HOUR = "LOCK TABLE {name} IN SHARE MODE"
HAS_ROWS = "SELECT EXISTS (SELECT 1 FROM {name})"
SERVERS_SOURCES = "SELECT DISTINCT server_id, source_id FROM {name}"
HOT_ROWS = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals "
    "FROM {name} WHERE server_id = %s AND source_id = %s ORDER BY ts"
)
EMPTY_HOUR = "TRUNCATE {name}"
# What an earlier compaction of the same hour stored.
OLD_TIMES = "SELECT n, times FROM store_block WHERE server_id = %s AND source_id = %s AND hour = %s"
OLD_SERIES = "SELECT metric_id, data FROM store_block_series WHERE server_id = %s AND source_id = %s AND hour = %s"
DELETE_TIMES = "DELETE FROM store_block WHERE server_id = %s AND source_id = %s AND hour = %s"
DELETE_SERIES = "DELETE FROM store_block_series WHERE server_id = %s AND metric_id = ANY(%s) AND hour = %s"
DELETE_1M = "DELETE FROM store_rollup_1m WHERE server_id = %s AND metric_id = ANY(%s) AND period = %s"
OLD_1H = "SELECT metric_id, data FROM store_rollup_1h WHERE server_id = %s AND metric_id = ANY(%s) AND period = %s"
DELETE_1H = "DELETE FROM store_rollup_1h WHERE server_id = %s AND metric_id = ANY(%s) AND period = %s"
COPY_TIMES = "COPY store_block (hour, server_id, source_id, n, times) FROM STDIN"
COPY_SERIES = "COPY store_block_series (hour, server_id, metric_id, source_id, data) FROM STDIN"
COPY_ROLLUP = "COPY {table} (period, server_id, metric_id, data) FROM STDIN"


def compact_closed(now: datetime) -> list[str]:
    """Compact every hot hour that ended at least the grace period before now."""
    done = []
    for name in partitions.existing(partitions.RAW):
        hour = partitions.RAW.start_of(name)
        if hour + timedelta(hours=1) + config.compact_grace() <= now and _has_rows(name):
            compact_hour(name, hour)
            done.append(name)
    return done


def _has_rows(name: str) -> bool:
    with connection.cursor() as cur:
        cur.execute(HAS_ROWS.format(name=name))
        return cur.fetchone()[0]


def compact_hour(name: str, hour: datetime) -> None:
    for scheme in (partitions.BLOCK, partitions.BLOCK_SERIES, partitions.ROLLUP_1M, partitions.ROLLUP_1H):
        partitions.ensure(scheme, hour)
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(LOCK_HOUR.format(name=name))
        cur.execute(SERVERS_SOURCES.format(name=name))
        keys = cur.fetchall()
        for server_id in sorted({k[0] for k in keys}):
            infos = {m.id: m for m in catalog.server_metrics([server_id])}
            layouts = catalog.server_layouts([server_id])
            for source_id in sorted(k[1] for k in keys if k[0] == server_id):
                _compact_one(cur, name, hour, server_id, source_id, infos, layouts)
        cur.execute(EMPTY_HOUR.format(name=name))


def _compact_one(cur, name, hour, server_id, source_id, infos, layouts) -> None:
    mine = {lay.id: lay for lay in layouts if lay.source_id == source_id}
    ids = {mid for lay in mine.values() for mid in lay.int_ids + lay.float_ids}
    cur.execute(HOT_ROWS.format(name=name), [server_id, source_id])
    rows = cur.fetchall()
    hour_us = micros(hour)
    polls = Points(np.array([r[0] for r in rows], np.int64), np.empty(0), np.array([r[1] for r in rows], np.int64))
    data = read_raw.decode_rows(rows, mine, ids)
    old_polls, old = _old_block(cur, hour, hour_us, server_id, source_id)
    data = {mid: concat([old[mid], data[mid]]) if mid in old and mid in data else data.get(mid, old.get(mid))
            for mid in set(data) | set(old)}
    ts, iv = _poll_times([old_polls, polls])
    _write(cur, hour, hour_us, server_id, source_id, ts, iv, data, infos)


def _old_block(cur, hour, hour_us, server_id, source_id) -> tuple[Points, dict[int, Points]]:
    cur.execute(OLD_TIMES, [server_id, source_id, hour])
    found = cur.fetchone()
    if not found:
        return Points.empty(), {}
    n, times = found
    ts, iv = blocks.decode_times(times, n, hour_us)
    cur.execute(OLD_SERIES, [server_id, source_id, hour])
    out = {}
    for mid, blob in cur.fetchall():
        vals, present = blocks.decode_series(blob, n)
        out[mid] = Points(ts[present], vals, iv[present])
    return Points(ts, np.empty(0), iv), out


def _poll_times(parts: list[Points]) -> tuple[np.ndarray, np.ndarray]:
    """Every poll time of the hour once, with its interval (later parts win)."""
    ts = np.unique(np.concatenate([p.ts for p in parts]))
    iv = np.full(len(ts), -1, np.int64)
    for p in parts:
        iv[np.searchsorted(ts, p.ts)] = p.iv
    return ts, iv


def _write(cur, hour, hour_us, server_id, source_id, ts, iv, data, infos) -> None:
    ids = sorted(data)
    day = hour.replace(hour=0)
    cur.execute(DELETE_TIMES, [server_id, source_id, hour])
    cur.execute(DELETE_SERIES, [server_id, ids, hour])
    cur.execute(DELETE_1M, [server_id, ids, hour])
    series, minutes, hours_ = [], [], {}
    for mid in ids:
        p = data[mid]
        counter = infos[mid].counter if mid in infos else False
        series.append((hour, server_id, mid, source_id, _series_blob(p, ts, counter)))
        minutes.append((hour, server_id, mid, blocks.encode_buckets(rollups.aggregate(p, rollups.MINUTE_US, hour_us))))
        hours_[mid] = rollups.aggregate(p, rollups.HOUR_US, micros(day))
    with cur.cursor.copy(COPY_TIMES) as copy:
        copy.write_row((hour, server_id, source_id, len(ts), blocks.encode_times(ts, iv, hour_us)))
    _copy_rows(cur, COPY_SERIES, series)
    _copy_rows(cur, COPY_ROLLUP.format(table="store_rollup_1m"), minutes)
    _merge_1h(cur, day, server_id, hours_)


def _series_blob(p: Points, ts: np.ndarray, counter: bool) -> bytes:
    present = np.zeros(len(ts), dtype=bool)
    pos = np.searchsorted(ts, p.ts)
    present[pos] = True
    vals = np.zeros(len(ts), dtype=p.vals.dtype)
    vals[pos] = p.vals
    return blocks.encode_series(vals, present, counter)


def _merge_1h(cur, day, server_id, new: dict[int, dict]) -> None:
    """Put this hour's bucket into each metric's day of 1-hour rollups."""
    ids = sorted(new)
    cur.execute(OLD_1H, [server_id, ids, day])
    old = defaultdict(rollups.empty, {mid: blocks.decode_buckets(blob) for mid, blob in cur.fetchall()})
    cur.execute(DELETE_1H, [server_id, ids, day])
    rows = [(day, server_id, mid, blocks.encode_buckets(rollups.replace(old[mid], new[mid]))) for mid in ids]
    _copy_rows(cur, COPY_ROLLUP.format(table="store_rollup_1h"), rows)


def _copy_rows(cur, sql: str, rows: list[tuple]) -> None:
    with cur.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
