"""What two reads cost the monitored MariaDB: the status texts with the server-wide gauges, and the wait instruments.

global_status reads Threads_running and Memory_used from information_schema (by name, beside the Com_
counters) since MariaDB's performance_schema.global_status misreports them: the status part of the
shared statement before and after, in turns. pfs_waits reads setup_instruments (which wait instruments
are off) on a connection every INSTRUMENTS_EVERY_S: that statement alone, and the poll's shared
statement for scale, so that its cost per poll at a 60 s and a 600 s check is known. Each read follows
a pause as between polls; the meter is performance_schema's statement time of the monitoring user
(bench/peer_cost.Meter), the median of rounds in turns so that drift on the machine hits each alike.

    .venv/bin/python bench/status_instruments_cost.py [--reads 20] [--rounds 5]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import cpus  # noqa: E402
from bench.peer_cost import Meter, measure  # noqa: E402  (sets Django up)
from collectors import weakened  # noqa: E402
from collectors.connection import detect  # noqa: E402
from collectors.poll import poll_target  # noqa: E402
from collectors.pool import Target  # noqa: E402
from collectors.source import counted_sql, query, sql_list  # noqa: E402
from collectors.sources import global_status, pfs_waits  # noqa: E402
from testing.mariadb import running_sandbox  # noqa: E402

USER, PASSWORD = "steady", "s3cret!"  # the sandbox's monitoring user
PAUSE = 0.3  # seconds idle before each read, as the connection is between polls
POLL_S = 10  # the poll interval the per-poll figures assume
# The status texts as they were: the whole performance_schema table, information_schema for the rest only.
BEFORE_PARTS = (
    counted_sql("VARIABLE_NAME, VARIABLE_VALUE", "FROM performance_schema.global_status"),
    counted_sql("VARIABLE_NAME, VARIABLE_VALUE", "FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN "
                f"({sql_list(n for n in global_status.NOT_IN_PFS if n not in global_status.SERVER_WIDE)})"),
)


def cases() -> dict[str, str]:
    return {
        "status texts, before": "SELECT " + ", ".join(BEFORE_PARTS),
        "status texts, server-wide gauges by name": global_status.MARIADB_PFS_STATUS_SQL,
        "shared statement (status + waits)": "SELECT " + ", ".join(
            (*global_status.MARIADB_PFS_PARTS, pfs_waits.WAITS_COUNTED)),
        "setup_instruments (wait instruments off)": weakened.INSTRUMENTS_SQL,
        "SELECT 1 (control)": "SELECT 1",
    }


def paused(conn, sql: str) -> None:
    time.sleep(PAUSE)
    query(conn, sql)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=20, help="reads of each case per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the cases in turns (median)")
    args = parser.parse_args()
    with running_sandbox("bench-status-instruments-") as server:
        split = cpus.split()
        if split:
            cpus.pin_tree(server.process.pid, split[0])
            os.sched_setaffinity(0, split[1])
        run(server, args.reads, args.rounds)


def run(server, reads: int, rounds: int) -> None:
    meter, conn = Meter(server), server.connect(USER, PASSWORD)
    print(f"server: {detect(conn).label}; load {os.getloadavg()[0]:.1f} at start; {rounds} rounds of {reads}"
          f" reads each, in turns; ms = performance_schema statement time per read")
    times: dict[str, list[float]] = {name: [] for name in cases()}
    for _ in range(rounds):
        for name, sql in cases().items():
            times[name].append(measure(meter, USER, reads, lambda s=sql: paused(conn, s))[1])
    medians = {name: statistics.median(ms) for name, ms in times.items()}
    for name, ms in medians.items():
        print(f"  {name:<44} {ms:>7.3f} ms   (rounds: {', '.join(f'{m:.3f}' for m in times[name])})")
    check = medians["setup_instruments (wait instruments off)"]
    shared = medians["shared statement (status + waits)"]
    for every in (60, 600):
        per_poll = check * POLL_S / every
        print(f"  instruments read every {every:>3} s: {per_poll:.4f} ms per {POLL_S} s poll"
              f" ({per_poll / shared:.1%} of the shared statement)")
    client_cost(server, rounds)
    print(f"load {os.getloadavg()[0]:.1f} at end")


def client_cost(server, rounds: int, polls: int = 40) -> None:
    """The worker's CPU per poll of the every-poll sources with and without wait_instruments, in turns."""
    target = Target(0, "bench", "127.0.0.1", server.port, "", USER, PASSWORD)
    plain = ["global_status", "pfs_waits", "innodb_mutex", "history_length", "oldest_trx"]
    variants = {"without wait_instruments": plain, "with wait_instruments": [*plain, "wait_instruments"]}
    saved: dict = {name: ({}, {}) for name in variants}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, only in variants.items():
            cpu = time.process_time()
            for _ in range(polls):
                result = poll_target(target, POLL_S, None, only, saved[name])
                saved[name][0].update(result.snapshots)
                saved[name][1].update(result.attempts)
            times[name].append((time.process_time() - cpu) * 1000 / polls)
    for name, ms in times.items():
        print(f"  worker CPU per poll, {name:<26} {statistics.median(ms):.3f} ms"
              f"   (rounds: {', '.join(f'{m:.3f}' for m in ms)})")


if __name__ == "__main__":
    main()
