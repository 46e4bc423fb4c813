"""What the statements source costs the monitored server, at 200, 2,000 and 10,000 digests in the table.

The meter is bench/peer_cost.py's: the monitoring user's statement time as performance_schema
counts it (events_statements_summary_by_user_by_event_name), so it is the server's time, not
the round trip. Each "minute" some digests move first (from root: not counted), then:

- ours: the statements source's whole read (collectors.sources.statements.collect: the rows whose
  LAST_SEEN moved, the texts of digests kept for the first time, the table size and digest_lost),
  on the same snapshot chain a collector keeps, so only the moved rows come back;
- ours, the moved-rows statement alone;
- PMM's approach: the whole table every minute (SELECT * FROM events_statements_summary_by_digest,
  every column including DIGEST_TEXT), what pmm-agent's perfschema reader does;
- the whole table with only our columns (what the LAST_SEEN filter saves apart from the text).

With --variants, also variants of the moved-rows statement (no statement time limit, the limit set once
for the session, 6 columns, a TIMESTAMP literal) to see what each part costs.

MariaDB gets a CPU of its own (bench/cpus.py) unless --shared-cpus.

    .venv/bin/python bench/statement_digest_cost.py [--reads 20] [--moved 200] [--churn] [--variants]
        [--sizes 200,2000,10000]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import cpus  # noqa: E402
from bench.peer_cost import Meter, measure  # noqa: E402  (sets Django up)
from collectors.connection import detect  # noqa: E402
from collectors.source import query  # noqa: E402
from collectors.sources import statements  # noqa: E402
from testing.mariadb import running_sandbox  # noqa: E402

USER = "steady"  # the sandbox's monitoring user
SIZES = (200, 2_000, 10_000)
INTERRUPTED = (1969, 3024)  # MariaDB max_statement_time, MySQL MAX_EXECUTION_TIME exceeded
PMM_SQL = "SELECT * FROM performance_schema.events_statements_summary_by_digest"


def populate(root, count: int) -> None:
    """count distinct digests (an alias is an identifier: kept in the digest text), each run once."""
    with root.cursor() as cur:
        cur.execute("TRUNCATE TABLE performance_schema.events_statements_summary_by_digest")
        for i in range(count):
            cur.execute(f"SELECT {i} AS c{i}")
            cur.fetchall()


def move(root, count: int, moved: int, turn: list[int]) -> None:
    """moved of the count digests run again: the same ones each time (a working set), or with
    --churn a different slice each time (each read then meets digests it has no text of)."""
    with root.cursor() as cur:
        for k in range(moved):
            i = (turn[0] + k) % count
            cur.execute(f"SELECT {i} AS c{i}")
            cur.fetchall()
    turn[0] += turn[1]


class Chain:
    """The source read as a collector reads it: each read against the snapshot of the one before."""

    def __init__(self, conn, info):
        self.conn, self.info, self.snapshot = conn, info, None

    def read(self) -> int:
        reading = statements.collect(self.conn, self.info, self.snapshot)
        _, self.snapshot = statements.compute(self.snapshot, reading, time.time(), None)
        return reading.values.get("statements.digests_read", 0)


def run(args, server) -> None:
    meter, root = Meter(server), server.connect()
    conn = server.connect(USER, "s3cret!")
    info = detect(conn)
    print(f"server: {info.label}; statement time limit {statements.STATEMENT_TIME_LIMIT_S} s;"
          f" {args.reads} reads per case; statement time of the monitoring user from"
          f" performance_schema; {args.moved} digests moved before each read")
    print(f"{'digests':>8} {'case':<44} {'stmts/read':>10} {'ms/read':>8} {'rows back':>10}")
    for count in (int(n) for n in args.sizes.split(",")):
        one_size(meter, root, conn, info, count, args)


def one_size(meter, root, conn, info, count: int, args) -> None:
    populate(root, count)
    query(conn, "SET SESSION max_statement_time = 0")  # a variant's session limit off again
    chain, turn = Chain(conn, info), [0, moved_step(args, count)]
    chain.read()  # the first read: the whole table, the baseline
    moved = min(count, args.moved)
    back: list[int] = []
    cases = [  # each made when its turn comes: the moved-rows statement starts from the chain's last read
        ("ours: the statements source's read", lambda: lambda: back.append(chain.read())),
        ("ours: the moved-rows statement alone", lambda: Alone(conn, info, chain).read),
        ("PMM: SELECT * (whole table, with text)", lambda: lambda: query(conn, PMM_SQL)),
        ("whole table, our columns", lambda: lambda: query(conn, statements.digest_sql(info, False))),
        ("control: SELECT 1 (this machine's floor)", lambda: lambda: query(conn, "SELECT 1")),
        *(variants(conn, info, chain) if args.variants else []),
    ]
    for name, make in cases:
        call, stopped = make(), []
        figures = measure(meter, USER, args.reads,
                          lambda c=call, s=stopped: (move(root, count, moved, turn), limited(c, s)))
        rows = f"{sum(back) / len(back):.0f}" if back and name.startswith("ours: the statements") else ""
        note = f"  {len(stopped)} stopped at the 1 s limit" if stopped else ""
        print(f"{count:>8} {name:<44} {figures[0]:>10.2f} {figures[1]:>8.3f} {rows:>10}{note}", flush=True)


def moved_step(args, count: int) -> int:
    return min(count, args.moved) if args.churn else 0


def limited(call, stopped: list) -> None:
    """call(); a statement the server stopped at its time limit is counted, not a crash."""
    try:
        call()
    except pymysql.err.OperationalError as exc:
        if exc.args[0] not in INTERRUPTED:
            raise
        stopped.append(exc)


class Alone:
    """A moved-rows statement by itself (the source's, or a variant), its watermark kept as the source keeps it."""

    def __init__(self, conn, info, chain: Chain, sql: str | None = None, setup: str = ""):
        self.conn, self.sql = conn, sql or statements.digest_sql(info, True)
        self.watermark = statements.State.of(chain.snapshot).watermark or ""
        self.setup = setup

    def read(self) -> None:
        if self.setup:  # once, before the first read: not a statement of each read
            query(self.conn, self.setup)
            self.setup = ""
        rows = query(self.conn, self.sql, (self.watermark,))
        self.watermark = max([statements.seen(r[-1]) for r in rows] + [self.watermark])


# Variants of the moved-rows statement, to see what each part costs (--variants): LAST_SEEN last in each.
PLAIN = "SELECT {columns} FROM " + statements.TABLE + " WHERE LAST_SEEN >= %s"
FEW = "SCHEMA_NAME, DIGEST, COUNT_STAR, SUM_TIMER_WAIT, FIRST_SEEN, LAST_SEEN"


def variants(conn, info, chain: Chain) -> list[tuple[str, object]]:
    ours = statements.COLUMNS
    return [
        ("variant: no statement time limit", lambda: Alone(conn, info, chain, PLAIN.format(columns=ours)).read),
        ("variant: 6 columns, no time limit", lambda: Alone(conn, info, chain, PLAIN.format(columns=FEW)).read),
        ("variant: LAST_SEEN > TIMESTAMP literal",
         lambda: Alone(conn, info, chain, PLAIN.format(columns=ours).replace(">= %s", ">= TIMESTAMP(%s)")).read),
        ("variant: time limit set once for the session",  # last: it stays on the session to the next size
         lambda: Alone(conn, info, chain, PLAIN.format(columns=ours),
                       f"SET SESSION max_statement_time = {statements.STATEMENT_TIME_LIMIT_S}").read),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--moved", type=int, default=200, help="digests that moved between two reads")
    parser.add_argument("--churn", action="store_true", help="move a different slice of digests each read")
    parser.add_argument("--shared-cpus", action="store_true")
    parser.add_argument("--variants", action="store_true", help="also time variants of the moved-rows statement")
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES), help="digest counts, comma-separated")
    args = parser.parse_args()
    split = None if args.shared_cpus else cpus.split()
    if split:
        cpus.pin_tree(os.getpid(), split[1])
    with running_sandbox("bench-digests-", extra_args=("--performance-schema-digests-size=12000",)) as server:
        if split:
            cpus.pin_tree(server.process.pid, split[0])
            print(f"MariaDB on CPU {cpus.describe(split[0])}, the bench on {cpus.describe(split[1])}")
        print(f"nproc {os.cpu_count()}, load average {os.getloadavg()}")
        run(args, server)


if __name__ == "__main__":
    main()
