# Our poll's reads in other forms (plain rows, fewer reads), timed in turns with the peer's whole scrape.
"""How low our every-poll statement can go against the peer: the floor under the goal.

Starts the same private MariaDB, write load and exporter as bench/peer_cost.py, then times
in turns, round after round (0.3 s apart, so drift hits every form alike), the server time
of (performance_schema per user, as root):
- the exporter's whole scrape (its four comparable collectors, its connection included);
- our every-poll statement as the worker sends it (collectors.shared_read: one SELECT of
  joined texts);
- the same reads as plain rows in one multi-statement (one round trip; the server skips
  GROUP_CONCAT, our client parses every row: its CPU is printed too);
- the floor: only what the exporter reads as well, the wait summary and the status table,
  as plain rows; then that floor plus each read the exporter does not make (the Com_
  counters by name, INNODB_TRX).
Each form's ratio is its median over the peer's median in the same rounds, plus our 60 s
sources averaged per poll (from bench/statement_parts.py's figure of round 4, measured
again here as the variables and InnoDB metrics parts). A form whose ratio is above the goal
(0.65 of the peer) cannot meet it whatever else is cut.

    .venv/bin/python bench/statement_floor.py [--rounds 30]
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

import pymysql  # noqa: E402
from pymysql.constants import CLIENT  # noqa: E402

from bench.peer_cost import OURS, PASSWORD, PEER, Exporter, Meter, exit_on_sigterm, loaded_server  # noqa: E402
from collectors.source import sql_list  # noqa: E402
from collectors.sources import global_status, innodb_metrics, oldest_trx, pfs_waits, variables  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402

PAUSE = 0.3
SETTLE = 0.02  # the statement's time is counted when it ends on the server, a little after its answer
STATUS_ROWS = "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status"
COM_ROWS = ("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
            f" WHERE VARIABLE_NAME IN ({sql_list(global_status.NOT_IN_PFS)})")
WAITS_ROWS = pfs_waits.WAITS_SQL
TRX_ROWS = oldest_trx.TRX_SQL
STATUS_TEXT, COM_TEXT = global_status.MARIADB_PFS_PARTS
EVERY_POLL = (STATUS_TEXT, COM_TEXT, pfs_waits.WAITS_COUNTED, oldest_trx.TRX_COUNTED)
# Forms of our statement: (label, statements sent in one round trip).
FORMS = (
    ("ours, as polled: one SELECT of joined texts", ("SELECT " + ", ".join(EVERY_POLL),)),
    ("the same reads as plain rows", (STATUS_ROWS, COM_ROWS, WAITS_ROWS, TRX_ROWS)),
    ("floor: waits + status table, plain rows", (STATUS_ROWS, WAITS_ROWS)),
    ("floor + Com_ counters by name", (STATUS_ROWS, WAITS_ROWS, COM_ROWS)),
    ("floor + INNODB_TRX", (STATUS_ROWS, WAITS_ROWS, TRX_ROWS)),
)
SIXTY_S = (("variables", "SELECT " + variables.VARIABLES_COUNTED),
           ("innodb_metrics", "SELECT " + innodb_metrics.METRICS_ENABLED_COUNTED))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--rate", type=int, default=50, help="sysbench write transactions per second")
    return parser.parse_args()


def connect(server: SandboxMariaDB) -> pymysql.Connection:
    conn = pymysql.connect(host="127.0.0.1", port=server.port, user=OURS, password=PASSWORD, autocommit=True,
                           client_flag=CLIENT.MULTI_STATEMENTS)
    with conn.cursor() as cur:
        cur.execute("SET SESSION group_concat_max_len = 1048576")  # as collectors.connection sets it
    return conn


def send(conn: pymysql.Connection, statements: tuple[str, ...]) -> float:
    """Our client's CPU seconds to send the statements and read every row of every answer."""
    cpu0 = time.thread_time()
    with conn.cursor() as cur:
        cur.execute(";".join(statements))
        cur.fetchall()
        while cur.nextset():
            cur.fetchall()
    return time.thread_time() - cpu0


def timed(meter: Meter, user: str, call) -> float:
    """Server ms of one call, as performance_schema counts user's statements."""
    before = meter.totals(user)[1]
    call()
    time.sleep(SETTLE)
    return (meter.totals(user)[1] - before) / 1e9


def rounds(args, meter: Meter, conn: pymysql.Connection, peer: Exporter) -> tuple[dict, dict]:
    server_ms: dict[str, list[float]] = {"peer": []}
    client_ms: dict[str, list[float]] = {}
    calls = {"peer": lambda: peer.scrape()}
    for label, statements in FORMS + tuple((name, (sql,)) for name, sql in SIXTY_S):
        calls[label] = lambda s=statements, k=label: client_ms.setdefault(k, []).append(send(conn, s) * 1000)
    for label in calls:
        server_ms.setdefault(label, [])
    for _ in range(args.rounds):
        for label, call in calls.items():
            time.sleep(PAUSE)
            server_ms[label].append(timed(meter, PEER if label == "peer" else OURS, call))
    return ({k: statistics.median(v) for k, v in server_ms.items()},
            {k: statistics.median(v) for k, v in client_ms.items()})


def report(server_ms: dict, client_ms: dict) -> None:
    peer = server_ms["peer"]
    sixty = sum(server_ms[name] for name, _ in SIXTY_S) / 6  # read every 60 s: a sixth of them per 10 s poll
    print(f"\npeer's whole scrape: {peer:.3f} ms (median); our 60 s sources: {sixty:.3f} ms per 10 s poll")
    print(f"  {'form':<46} {'server ms':>9} {'+60 s':>7} {'ratio':>6} {'client CPU ms':>14}")
    for label, _ in FORMS:
        total = server_ms[label] + sixty
        print(f"  {label:<46} {server_ms[label]:>9.3f} {total:>7.3f} {total / peer:>6.2f} {client_ms[label]:>14.3f}")


def main() -> None:
    args = parse_args()
    exit_on_sigterm()
    with loaded_server("bench-floor-", args.rate, args.rounds * 10 + 120) as (server, peer, _split):
        meter, conn = Meter(server), connect(server)
        print(f"MariaDB {server.execute('SELECT VERSION()')[0][0]}, sysbench oltp_write_only at {args.rate} tx/s;"
              f" {args.rounds} rounds; {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}",
              flush=True)
        time.sleep(5)  # the load's first seconds
        report(*rounds(args, meter, conn, peer))
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
