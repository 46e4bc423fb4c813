"""Store benchmark: bytes per sample, ingest rate, query times on a fleet-shaped load.

    .venv/bin/python bench/store.py [--servers 20] [--days 7]

Starts a private embedded PostgreSQL and Redis in a temp dir (the test
settings), so it never touches var/ or another engineer's servers. Prints
figures; results go to docs/benchmarks.md ("## Store").
"""

import argparse
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")

STEP = 10  # seconds between polls
# The last `days` days up to the current hour: compaction leaves the newest hour hot.
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=7)


class Fleet:
    """A server's metrics: ~250 SHOW GLOBAL STATUS names, 80 wait events (count, time), history length.

    Counter deltas are mostly zero or small (as on real servers: most status
    counters never move), a few are large (bytes) and picosecond timers are big.
    """

    def __init__(self, seed: int):
        rng = np.random.default_rng(seed)
        self.rng = rng
        self.status_counters = [f"Status_counter_{i}" for i in range(180)]
        self.status_gauges = [f"Status_gauge_{i}" for i in range(70)]
        kinds = rng.choice(["zero", "sparse", "busy", "bytes"], size=180, p=[0.55, 0.15, 0.25, 0.05])
        self.lam = np.select([kinds == "sparse", kinds == "busy", kinds == "bytes"],
                             [0.05, rng.uniform(5, 5000, 180), 1e6], 0.0)
        self.gauge_base = rng.integers(0, 10_000, 70)
        self.gauge_moves = rng.random(70) < 0.3
        events = [f"wait/synch/mutex/innodb/event_{i}" for i in range(80)]
        self.wait_count = [f"wait.count:{e}" for e in events]
        self.wait_time = [f"wait.time_ps:{e}" for e in events]
        self.wait_lam = np.where(rng.random(80) < 0.7, 0.0, rng.uniform(1, 2000, 80))
        self.wait_latency = rng.uniform(1e5, 1e8, 80)

    def samples(self, server_id: int, i: int):
        from store.sample import Sample

        rng, ts = self.rng, T0 + timedelta(seconds=STEP * i)
        deltas = rng.poisson(self.lam).tolist()
        gauges = (self.gauge_base + self.gauge_moves * rng.integers(-3, 4, 70)).tolist()
        status = dict(zip(self.status_counters, deltas, strict=True)) | dict(
            zip(self.status_gauges, gauges, strict=True))
        counts = rng.poisson(self.wait_lam)
        times = (counts * self.wait_latency * rng.uniform(0.5, 1.5, 80)).astype(np.int64).tolist()
        waits = dict(zip(self.wait_count, counts.tolist(), strict=True)) | dict(
            zip(self.wait_time, times, strict=True))
        return [
            Sample(server_id, "global_status", ts, float(STEP), status | {"history_list_length": 1000 + i % 97},
                   frozenset(self.status_counters)),
            Sample(server_id, "pfs_waits", ts, float(STEP), waits, frozenset(waits)),
        ]

    @property
    def metrics_per_poll(self) -> int:
        return 180 + 70 + 1 + 160


def setup_django():
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


SIZE = """
SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
WHERE p.relname = ANY(%s)
"""


def table_bytes(tables: list[str]) -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("VACUUM")  # what autovacuum would reach: no dead rows counted
        cur.execute("CHECKPOINT")
        cur.execute(SIZE, [tables])
        return cur.fetchone()[0]


def write_polls(server_ids: list[int], first: int, count: int, batch: int = 50) -> tuple[int, float]:
    """Write count polls of each server; return (samples, seconds spent in write_samples)."""
    from store.ingest import write_samples

    fleets = {sid: Fleet(sid) for sid in server_ids}
    n, spent, pending = 0, 0.0, []
    for i in range(first, first + count):
        for sid in server_ids:
            pending += fleets[sid].samples(sid, i)
        if len(pending) >= batch * 2:
            n += sum(len(s.values) for s in pending)
            t = time.perf_counter()
            write_samples(pending)
            spent += time.perf_counter() - t
            pending = []
    if pending:
        n += sum(len(s.values) for s in pending)
        t = time.perf_counter()
        write_samples(pending)
        spent += time.perf_counter() - t
    return n, spent


def timed(fn, repeat: int = 7) -> tuple[float, float]:
    """(median, best) wall time in ms."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return float(np.median(times)), min(times)


def bench_ingest(servers: list[int]) -> None:
    n, spent = write_polls(servers, 0, 360)
    print(f"ingest: {n:,} samples ({len(servers)} servers x 1 h) in {spent:.2f} s "
          f"= {n / spent:,.0f} samples/s in one writer process (batches of 100 polls, COPY)")
    print(f"  hot rows: {table_bytes(['store_raw']) / n:.2f} bytes/sample (heap + indexes + TOAST)")


def bench_week(server_id: int, days: int) -> int:
    polls = days * 86400 // STEP
    n, spent = write_polls([server_id], 0, polls, batch=100)
    print(f"one server, {days} days: {n:,} samples written in {spent:.1f} s ({n / spent:,.0f} samples/s)")
    return n


def bench_compaction(total: int, bench_servers: int) -> None:
    from store import compaction, rollup_days

    hot = table_bytes(["store_raw"])
    t = time.perf_counter()
    done = compaction.compact_closed(datetime.now(UTC))
    spent = time.perf_counter() - t
    print(f"compaction: {len(done)} hours in {spent:.1f} s ({spent / max(len(done), 1) * 1000:.0f} ms per hour "
          f"of 1 server; the first hour holds {bench_servers} servers)")
    t = time.perf_counter()
    days = rollup_days.roll_closed(datetime.now(UTC))
    print(f"1-hour rollups: {days} closed server-days in {time.perf_counter() - t:.1f} s")
    left = table_bytes(["store_raw"])
    blocks = table_bytes(["store_block", "store_block_series"])
    rolls_1m, rolls_1h = table_bytes(["store_rollup_1m"]), table_bytes(["store_rollup_1h"])
    print(f"  all samples hot before: {hot / total:.2f} bytes/sample")
    print(f"  after: compacted blocks {blocks / total:.2f} bytes/sample, still hot {left:,} bytes; "
          f"1-min rollups {rolls_1m / total:.2f}, 1-h rollups {rolls_1h / total:.3f} bytes per raw sample")


def bench_queries(server_id: int, days: int) -> None:
    from store import query

    end = T0 + timedelta(days=days)
    names = query.metric_names(server_id, "Status_counter_*")
    busy = [n for n in names if query.totals(server_id, [n], end - timedelta(hours=1), end)[n]][:15]
    twenty = busy + query.metric_names(server_id, "wait.time_ps:*")[:5]
    one = twenty[:1]
    full = days * 86400 // STEP + 10
    cases = [
        (f"20 series, {days} d, max_points=1200 (1-min rollups)", twenty, 1200),
        (f"20 series, {days} d, every 10 s point (compacted blocks)", twenty, full),
        (f"1 series, {days} d, max_points=1200", one, 1200),
        (f"1 series, {days} d, every 10 s point", one, full),
    ]
    for label, metrics, points in cases:
        got = query.series([server_id], metrics, T0, end, max_points=points)
        med, best = timed(lambda m=metrics, p=points: query.series([server_id], m, T0, end, max_points=p))
        print(f"query {label}: median {med:.0f} ms, best {best:.0f} ms "
              f"({sum(len(s.ts) for s in got):,} points returned)")
    med, best = timed(lambda: query.totals(server_id, twenty, T0, end))
    print(f"totals of 20 counters over {days} d (exact, from deltas): median {med:.0f} ms, best {best:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=20, help="servers for the ingest and hot-size figures")
    parser.add_argument("--days", type=int, default=7, help="days of one server for the query figures")
    args = parser.parse_args()
    global T0
    T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=args.days)
    setup_django()
    print(f"fleet: {Fleet(0).metrics_per_poll} metrics per server per poll, {STEP} s polls; data from {T0:%F %H:%M}")
    bench_ingest(list(range(1, args.servers + 1)))
    total = bench_week(1000, args.days)
    bench_compaction(total + Fleet(0).metrics_per_poll * 360 * args.servers, args.servers + 1)
    bench_queries(1000, args.days)


if __name__ == "__main__":
    main()
