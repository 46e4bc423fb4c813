"""Store benchmark: bytes per sample, ingest rate, query times on a fleet-shaped load.

    .venv/bin/python bench/store.py [--servers 20] [--days 7]

Starts a private embedded PostgreSQL and Redis in a temp dir (the test
settings), so it never touches var/ or another engineer's servers. Prints
figures; results go to docs/benchmarks.md ("## Store").
"""

import argparse
import multiprocessing
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")

STEP = 10  # seconds between polls
T0 = datetime(2026, 1, 5, tzinfo=UTC)


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
        from monitor.store.sample import Sample

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
        cur.execute("CHECKPOINT")
        cur.execute(SIZE, [tables])
        return cur.fetchone()[0]


def write_polls(server_ids: list[int], first: int, count: int, batch: int = 50) -> tuple[int, float]:
    """Write count polls of each server; return (samples, seconds spent in write_samples)."""
    from monitor.store.ingest import write_samples

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=20, help="servers for the ingest and hot-size figures")
    parser.add_argument("--days", type=int, default=7, help="days of one server for the query figures")
    parser.add_argument("--hot-only", action="store_true")
    args = parser.parse_args()
    setup_django()
    print(f"fleet: {Fleet(0).metrics_per_poll} metrics per server per poll, {STEP} s polls")

    servers = list(range(1, args.servers + 1))
    n, spent = write_polls(servers, 0, 360)
    print(f"ingest: {n} samples in {spent:.2f} s = {n / spent:,.0f} samples/s (one writer process)")
    hot = table_bytes(["store_raw"])
    print(f"hot rows: {hot / n:.2f} bytes/sample (tables + indexes + TOAST)")


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    main()
