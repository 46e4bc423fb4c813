"""Compaction of closed hours: hot rows become per-metric hour blocks, plus 1-minute rollups.

For each hot partition (one hour) that is closed, in one transaction: lock it
against writers, read it, merge with what an earlier compaction of that hour
stored (late samples, e.g. from the buffer after an outage), write the
blocks and the 1-minute rollups, mark the day for its 1-hour rollups
(store.rollup_days), and empty it. Values read back through the
query API are unchanged (tests/test_compaction.py).
"""

from datetime import datetime, timedelta

import numpy as np
from django.db import connection, transaction

from store import blocks, catalog, config, partitions, read_raw, rollups
from store.points import SampleArrays, concat, micros

# Keep writers out of the hour while we move it (readers may go on).
LOCK_HOUR = "LOCK TABLE {name} IN SHARE MODE"
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
DELETE_SERIES = "DELETE FROM store_block_series WHERE server_id = %s AND metric_id = ANY(%s::int[]) AND hour = %s"
DELETE_1M = "DELETE FROM store_rollup_1m WHERE server_id = %s AND metric_id = ANY(%s::int[]) AND period = %s"
# The day's 1-hour rollups are (re)built from its 1-minute rollups once it is closed; until then
# readers derive them, and keep what they derived while the day's version (a sequence) is unchanged.
MARK_DAY = (
    "INSERT INTO store_pendingday (server_id, day) VALUES (%s, %s) "
    "ON CONFLICT (server_id, day) DO UPDATE SET version = EXCLUDED.version"
)
DELETE_1H = "DELETE FROM store_rollup_1h WHERE server_id = %s AND metric_id = ANY(%s::int[]) AND period = %s"
COPY_TIMES = "COPY store_block (hour, server_id, source_id, n, times) FROM STDIN"
COPY_SERIES = "COPY store_block_series (hour, server_id, metric_id, source_id, data) FROM STDIN"
COPY_ROLLUP = "COPY {table} (period, server_id, metric_id, data) FROM STDIN"


def compact_closed(now: datetime) -> list[str]:
    """Compact every hot hour that ended at least the grace period before now."""
    done = []
    for name in partitions.existing(partitions.RAW):
        hour = partitions.RAW.start_of(name)
        if hour + timedelta(hours=1) + config.compact_grace() <= now and partitions.has_rows(name):
            compact_hour(name, hour)
            done.append(name)
    return done



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
    polls = SampleArrays(np.array([r[0] for r in rows], np.int64), np.empty(0),
                         np.array([r[1] for r in rows], np.int64))
    data = read_raw.decode_rows(rows, mine, ids)
    old_polls, old = _old_block(cur, hour, hour_us, server_id, source_id)
    data = {mid: concat([old[mid], data[mid]]) if mid in old and mid in data else data[mid] if mid in data else old[mid]
            for mid in set(data) | set(old)}
    ts, iv = _poll_times([old_polls, polls])
    _write(cur, hour, hour_us, server_id, source_id, ts, iv, data, infos)


def _old_block(cur, hour, hour_us, server_id, source_id) -> tuple[SampleArrays, dict[int, SampleArrays]]:
    cur.execute(OLD_TIMES, [server_id, source_id, hour])
    found = cur.fetchone()
    if not found:
        return SampleArrays.empty(), {}
    n, times = found
    ts, iv = blocks.decode_times(times, n, hour_us)
    cur.execute(OLD_SERIES, [server_id, source_id, hour])
    out = {}
    for mid, blob in cur.fetchall():
        vals, present = blocks.decode_series(blob, n)
        out[mid] = SampleArrays(ts[present], vals, iv[present])
    return SampleArrays(ts, np.empty(0), iv), out


def _poll_times(parts: list[SampleArrays]) -> tuple[np.ndarray, np.ndarray]:
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
    cur.execute(DELETE_1H, [server_id, ids, day])  # rebuilt from the 1-minute rollups later
    cur.execute(MARK_DAY, [server_id, day])
    series, minutes = _encode(hour_us, ts, iv, data, ids, infos)
    with cur.cursor.copy(COPY_TIMES) as copy:
        copy.write_row((hour, server_id, source_id, len(ts), blocks.encode_times(ts, iv, hour_us)))
    _copy_rows(cur, COPY_SERIES, [(hour, server_id, mid, source_id, series[mid]) for mid in ids])
    _copy_rows(cur, COPY_ROLLUP.format(table="store_rollup_1m"), [(hour, server_id, mid, minutes[mid]) for mid in ids])


def _encode(hour_us, ts, iv, data, ids, infos) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """Series blobs and 1-minute rollup blobs; integer metrics in one numpy pass."""
    ints = [mid for mid in ids if data[mid].vals.dtype.kind != "f"]
    counter = {mid: infos[mid].counter if mid in infos else False for mid in ids}
    series, minutes = {}, {}
    for mid in ids:
        if mid not in ints:
            p = data[mid]
            series[mid] = _series_blob(p, ts, counter[mid])
            minutes[mid] = _minutes_blob(rollups.aggregate(p, rollups.MINUTE_US, hour_us), counter[mid])
    if not ints:
        return series, minutes
    vals = np.zeros((len(ints), len(ts)), np.int64)
    present = np.zeros((len(ints), len(ts)), bool)
    for row, mid in enumerate(ints):
        pos = np.searchsorted(ts, data[mid].ts)
        vals[row, pos] = data[mid].vals
        present[row, pos] = True
    counters = np.array([counter[mid] for mid in ints])
    series.update(zip(ints, blocks.encode_series_matrix(vals, present, counters), strict=True))
    # metrics read at every poll share their buckets: aggregate them as one matrix
    full = np.asarray(present.all(axis=1) & (int(np.abs(vals).max(initial=0)) * len(ts) < 2**63))
    if full.any():
        aggs = rollups.aggregate_matrix(ts, iv, vals[full], rollups.MINUTE_US, hour_us)
        full_ids = [mid for mid, f in zip(ints, full, strict=True) if f]
        aggs = [b if counter[mid] else rollups.without_rates(b) for mid, b in zip(full_ids, aggs, strict=True)]
        minutes.update(zip(full_ids, blocks.encode_buckets_matrix(aggs), strict=True))
    for mid, f in zip(ints, full, strict=True):
        if not f:
            minutes[mid] = _minutes_blob(rollups.aggregate(data[mid], rollups.MINUTE_US, hour_us), counter[mid])
    return series, minutes


def _minutes_blob(b: dict[str, np.ndarray], counter: bool) -> bytes:
    """A metric's 1-minute rollup row; a gauge's without per-poll rates (they mean nothing there)."""
    return blocks.encode_buckets(b if counter else rollups.without_rates(b))


def _series_blob(p: SampleArrays, ts: np.ndarray, counter: bool) -> bytes:
    present = np.zeros(len(ts), dtype=bool)
    pos = np.searchsorted(ts, p.ts)
    present[pos] = True
    vals = np.zeros(len(ts), dtype=p.vals.dtype)
    vals[pos] = p.vals
    return blocks.encode_series(vals, present, counter)


def _copy_rows(cur, sql: str, rows: list[tuple]) -> None:
    with cur.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
