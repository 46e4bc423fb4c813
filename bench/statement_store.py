"""Statement digests in the store: bytes per stored digest-interval, write rate, and a range's top query.

    .venv/bin/python bench/statement_store.py [--servers 20] [--hours 6]

Starts the test settings' private PostgreSQL (never var/). Writes --servers servers x 200
digests + the rest row every 60 s for --hours through store.statements.write, one call per
batch of 10 servers (as a collector batch records), with realistic figures: execution counts
spread over orders of magnitude, picosecond times, mostly-zero errors and scans. Prints the
bytes per row (table and indexes, from pg_total_relation_size), the rows written per second,
the fleet figure at 1,000 servers, and the time of the Statements tab's query (a day, top
by time). Results go to docs/benchmarks.md ("Statement digests").
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

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from store import statement_reads  # noqa: E402
from store.statements import COUNTERS, REST, StatementRow, write  # noqa: E402

DIGESTS, INTERVAL, BATCH = 200, 60, 10
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=1)
SIZE_SQL = ("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_inherits i"
            " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'store_statement'::regclass")


def read_rows(server_id: int, ts: datetime, rng: np.random.Generator, rate: np.ndarray) -> list[StatementRow]:
    execs = rng.poisson(rate)
    latency = (rng.lognormal(13, 2, DIGESTS)).astype(np.int64) + 1_000_000  # ~0.5 ms median, long tail
    rows = []
    for d in range(DIGESTS):
        e = int(execs[d])
        counts = {"execs": e, "time_ps": e * int(latency[d]), "lock_ps": e * 1_000_000, "rows_sent": e * 3,
                  "rows_examined": e * int(rng.integers(1, 100)), "errors": int(rng.random() < 0.02),
                  "no_index": e if d % 17 == 0 else 0}
        rows.append(StatementRow(server_id, ts, INTERVAL * 1000, "app", f"{d:064x}",
                                 tuple(counts.get(name, 0) for name in COUNTERS), int(latency[d]) * 20))
    rest = (int(execs.sum() // 10), int(execs.sum()) * 100_000_000) + (0,) * (len(COUNTERS) - 2)
    rows.append(StatementRow(server_id, ts, INTERVAL * 1000, *REST, rest, 10**10))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--hours", type=int, default=6)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = np.random.default_rng(7)
    rate = rng.lognormal(4, 2, DIGESTS)
    reads = args.hours * 3600 // INTERVAL
    written, seconds = 0, 0.0
    for k in range(1, reads + 1):
        ts = T0 + timedelta(seconds=INTERVAL * k)
        for first in range(1, args.servers + 1, BATCH):
            rows = [r for s in range(first, min(first + BATCH, args.servers + 1)) for r in read_rows(s, ts, rng, rate)]
            t0 = time.perf_counter()
            written += write(rows, {})
            seconds += time.perf_counter() - t0
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE store_statement")
        cur.execute(SIZE_SQL)
        size = int(cur.fetchone()[0])
    report(args, written, seconds, size)


def report(args, written: int, seconds: float, size: int) -> None:
    per_row = size / written
    fleet_rows_day = 1000 * (DIGESTS + 1) * 86400 / INTERVAL
    print(f"nproc {os.cpu_count()}, load average {os.getloadavg()}")
    print(f"{written:,} rows ({args.servers} servers x {DIGESTS + 1} x {args.hours} h at {INTERVAL} s)")
    print(f"stored: {size / 1e6:.1f} MB with indexes = {per_row:.1f} bytes per digest-interval")
    per_read_ms = seconds / (written / (DIGESTS + 1)) * 1000
    print(f"write: {written / seconds:,.0f} rows/s ({per_read_ms:.2f} ms per server-read)")
    print(f"fleet, 1,000 servers x {DIGESTS + 1} every {INTERVAL} s: {fleet_rows_day / 86400:,.0f} rows/s to write,"
          f" {fleet_rows_day * per_row / 1e9:.1f} GB a day, {14 * fleet_rows_day * per_row / 1e9:.0f} GB for the"
          f" default 14 days")
    end = T0 + timedelta(hours=args.hours)
    for label, start in (("1 h", end - timedelta(hours=1)), (f"{args.hours} h", T0)):
        times = []
        for _ in range(5):  # the best of five: a shared machine
            t0 = time.perf_counter()
            found = statement_reads.totals(1, start, end)
            times.append((time.perf_counter() - t0) * 1000)
        ms = min(times)
        print(f"top of one server over {label}: {len(found)} digests summed in {ms:.1f} ms")


if __name__ == "__main__":
    main()
