"""A long range's top statements from the digests' hourly rollups against from every read.

    .venv/bin/python bench/statement_rollups.py [--days 7]

Starts the test settings' private PostgreSQL (never var/). Writes one server's 200 digests + the rest
row every 60 s for --days (bench/statement_store.py's figures), rolls the closed hours up
(store.statement_hours.roll_closed, timed per hour), then times store.statement_reads.totals over 1 h,
24 h and the whole range, ending 20 minutes into an hour as a page's "now" does, with the rollups and
without them (rollups=False: every read decoded), best of three, both in one process so the machine's
load weighs on both alike. Checks that both give the same sums. Results go to docs/benchmarks.md.
"""

import argparse
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.statement_store import DIGESTS, INTERVAL, T0, read_rows  # noqa: E402  (sets Django up)
from store import statement_hours, statement_reads  # noqa: E402
from store.statements import COUNTERS, decode_read, write  # noqa: E402

SIZE_SQL = ("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_inherits i"
            " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = %s::regclass")


def fill(days: int) -> None:
    rng = np.random.default_rng(7)
    rate = rng.lognormal(4, 2, DIGESTS)
    with connection.cursor() as cur:
        cur.execute("TRUNCATE store_statement, store_statement_hour, store_statement_pending")
    batch = []
    for k in range(1, days * 86400 // INTERVAL + 1):
        batch += read_rows(1, T0 + timedelta(seconds=INTERVAL * k), rng, rate)
        if len(batch) >= 20_000:
            write(batch, {})
            batch = []
    write(batch, {})


def timed(call) -> tuple[float, object]:
    best, found = float("inf"), None
    for _ in range(3):
        t0 = time.perf_counter()
        found = call()
        best = min(best, time.perf_counter() - t0)
    return best * 1000, found


def size(table: str) -> int:
    with connection.cursor() as cur:
        cur.execute(f"VACUUM ANALYZE {table}")
        cur.execute(SIZE_SQL, [table])
        return int(cur.fetchone()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    print(f"nproc {os.cpu_count()}, load average {os.getloadavg()}")
    fill(args.days)
    end = T0 + timedelta(days=args.days, minutes=-40)  # 20 minutes into the last hour
    t0 = time.perf_counter()
    hours = statement_hours.roll_closed(end + timedelta(minutes=10))
    roll_ms = (time.perf_counter() - t0) * 1000
    print(f"rolled up {hours} hours in {roll_ms / 1000:.1f} s ({roll_ms / max(hours, 1):.1f} ms an hour);"
          f" reads {size('store_statement') / 1e6:.1f} MB, rollups {size('store_statement_hour') / 1e6:.1f} MB")
    for label, span in (("1 h", timedelta(hours=1)), ("24 h", timedelta(days=1)),
                        (f"{args.days} d", timedelta(days=args.days) - timedelta(minutes=41))):
        start = end - span
        raw_ms, raw = timed(lambda s=start: statement_reads.totals(1, s, end, rollups=False))
        rolled_ms, rolled = timed(lambda s=start: statement_reads.totals(1, s, end))
        same = sorted((t.digest_id, t.sums, t.intervals) for t in raw) == sorted(
            (t.digest_id, t.sums, t.intervals) for t in rolled)
        print(f"top over {label:>5}: every read {raw_ms:8.1f} ms, with rollups {rolled_ms:7.1f} ms"
              f" ({raw_ms / rolled_ms:.0f}x); same sums: {same}", flush=True)
    for label, span in (("24 h", timedelta(days=1)), (f"{args.days} d", timedelta(days=args.days, minutes=-41))):
        start = end - span
        ranked = sorted(statement_reads.totals(1, start, end), key=lambda t: -t.sums["time_ps"])
        top = [t.digest_id for t in ranked[:50]]
        before_ms, before = timed(lambda s=start, ids=top: read_by_read_lines(1, ids, s, end))
        after_ms, after = timed(lambda s=start, ids=top: statement_reads.lines(1, ids, s, end))
        binned_ms, _ = timed(lambda s=start, ids=top: statement_reads.binned(1, ids, s, end, 40))
        print(f"lines of the top 50 over {label:>5}: read by read {before_ms:8.1f} ms, 240 reads decoded at once"
              f" {after_ms:7.1f} ms; same: {before == after}; summed in 40 bins (statement_reads.binned,"
              f" rollups where an hour is inside one bin) {binned_ms:7.1f} ms", flush=True)
    print(f"load average {os.getloadavg()}")


def read_by_read_lines(server_id: int, digest_ids: list[int], start, end) -> dict:
    """statement_reads.lines as it was: each read decoded by itself (the before of the bench)."""
    found: dict = {digest_id: [] for digest_id in digest_ids}
    with connection.cursor() as cur:
        cur.execute(statement_reads.READS_SQL, [server_id, start, end])
        stored = cur.fetchall()
    columns = [COUNTERS.index(name) for name in ("execs", "time_ps", "rows_examined", "rows_sent", "errors")]
    for ts, interval_ms, n, ids, data in stored:
        read_ids, values, _ = decode_read(n, bytes(ids), bytes(data))
        for i in np.flatnonzero(np.isin(read_ids, digest_ids)).tolist():
            found[int(read_ids[i])].append((ts, interval_ms, *(int(v) for v in values[i, columns])))
    return found


if __name__ == "__main__":
    main()
