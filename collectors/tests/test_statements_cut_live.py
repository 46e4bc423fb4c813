"""A digest read stopped by its own time limit on the suite's MariaDB: said in words, and nothing lost."""

from datetime import UTC, datetime, timedelta

from collectors.batch import poll_server
from collectors.sources import statements
from store import statement_reads

SCHEMA = "stmt_cut"
# Half a second per row read: the dozens of rows that moved take far past the read's 1 s limit.
SLOW_SQL = statements.MOVED_SQL + " AND SLEEP(0.5) = 0"


def poll(server):
    return next(s for s in poll_server(server.id, only=[statements.NAME]).sources if s.name == statements.NAME)


def updates(conn, times: int) -> None:
    with conn.cursor() as cur:
        for _ in range(times):
            cur.execute("UPDATE t SET v = v + 1 WHERE id = 1")


def test_a_read_cut_by_its_time_limit_says_so_and_the_next_read_counts_its_interval(server, mariadb, monkeypatch):
    conn = mariadb.connect()
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
        cur.execute(f"USE {SCHEMA}")
        cur.execute("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
        cur.execute("INSERT IGNORE INTO t VALUES (1, 0)")
    since = datetime.now(UTC)
    assert poll(server).ok  # the baseline
    updates(conn, 4)
    assert poll(server).ok  # a digest new since the baseline: its 4 counted whole
    updates(conn, 3)
    monkeypatch.setattr(statements, "MOVED_SQL", SLOW_SQL)
    cut = poll(server)
    monkeypatch.undo()
    updates(conn, 2)
    assert poll(server).ok
    conn.close()
    assert not cut.ok
    assert "the digest read was stopped after 1 s by the monitor's own time limit on it (max_statement_time)" \
        in cut.error and "nothing is lost" in cut.error and "error 1969" not in cut.error
    rows = statement_reads.totals(server.id, since, datetime.now(UTC) + timedelta(seconds=1))
    got = [r.sums["execs"] for r in rows if r.schema == SCHEMA and r.text.upper().startswith("UPDATE")]
    assert got == [4 + 3 + 2]  # the cut read's 3 counted by the read after it
