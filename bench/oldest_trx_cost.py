"""What the oldest_trx and replication sources cost the monitored server, by how many transactions are open.

bench/peer_cost.py measures every source under load, where INNODB_TRX is empty and
oldest_trx runs one statement. Here the same meter (performance_schema statement time of the
monitoring user) reads oldest_trx with nothing open, with one idle REPEATABLE READ holder
(three statements: INNODB_TRX, its thread, its last statement) and with 50 open transactions,
then each of the three statements alone with the 50 open.

InnoDB refreshes what INNODB_TRX shows only after 0.1 s without a read of it, so a read
follows a 0.11 s pause, as polls seconds apart do (the pause is not statement time).

    .venv/bin/python bench/oldest_trx_cost.py [--polls 40]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peer_cost import Meter, measure  # noqa: E402  (sets Django up)
from collectors.connection import detect  # noqa: E402
from collectors.sources import oldest_trx, replication  # noqa: E402
from testing.mariadb import SandboxMariaDB, running_sandbox  # noqa: E402

DB = "bench_trx"
USER = "steady"  # the sandbox's monitoring user


def hold(server: SandboxMariaDB, count: int) -> list:
    """count connections, each with a REPEATABLE READ transaction that has read a row and sits idle."""
    held = []
    for _ in range(count):
        conn = server.connect()
        with conn.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute(f"SELECT v FROM {DB}.t WHERE id = 1")
            cur.fetchall()
        held.append(conn)
    return held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=20, help="reads per round (5 rounds, median)")
    args = parser.parse_args()
    with running_sandbox("bench-oldest-trx-") as server:  # its monitoring user is USER
        server.execute(f"CREATE DATABASE {DB}", f"CREATE TABLE {DB}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                       f"INSERT INTO {DB}.t VALUES (1, 0)")
        run(server, args.polls)


def median_of_rounds(meter: Meter, polls: int, call, rounds: int = 5) -> tuple[float, float, float]:
    """peer_cost.measure's statements, ms and connects per call: the median of a few rounds (a shared machine)."""
    figures = sorted((measure(meter, USER, polls, call) for _ in range(rounds)), key=lambda f: f[1])
    return figures[len(figures) // 2]


def run(server: SandboxMariaDB, polls: int) -> None:
    meter, conn = Meter(server), server.connect(USER, "s3cret!")
    info = detect(conn)
    print(f"server: {info.label}; median of 5 rounds of {polls} reads; statement time from performance_schema")
    print(f"{'case':<34} {'statements/read':>16} {'ms/read':>9}")
    count, ms, _ = median_of_rounds(meter, polls, lambda: replication.collect(conn, info))
    print(f"{'replication, not a replica':<34} {count:>16.2f} {ms:>9.3f}")
    count, ms, _ = median_of_rounds(meter, polls, lambda: paused(statement, conn, "SELECT 1"))
    print(f"{'SELECT 1 after the pause (control)':<34} {count:>16.2f} {ms:>9.3f}")
    held: list = []
    for wanted in (0, 1, 50):
        held += hold(server, wanted - len(held))
        count, ms, _ = median_of_rounds(meter, polls, lambda: paused(oldest_trx.collect, conn, info))
        print(f"{f'oldest_trx, {wanted} idle transactions open':<34} {count:>16.2f} {ms:>9.3f}")
    ids = ", ".join(str(c.thread_id()) for c in held[:oldest_trx.LIMIT])
    for name, sql in (("INNODB_TRX", oldest_trx.TRX_SQL), ("threads", oldest_trx.PFS_THREADS_SQL.format(ids=ids)),
                      ("last statement", oldest_trx.LAST_STATEMENT_SQL % held[0].thread_id())):
        count, ms, _ = median_of_rounds(meter, polls, lambda s=sql: paused(statement, conn, s))
        print(f"{f'  alone: {name}':<34} {count:>16.2f} {ms:>9.3f}")
    for c in held:
        c.close()


def paused(read, *args) -> None:
    time.sleep(0.11)
    read(*args)


def statement(conn, sql: str) -> None:
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.fetchall()


if __name__ == "__main__":
    main()
