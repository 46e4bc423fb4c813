"""Our own poll's digests, as the suite's MariaDB stores them, are monitoring reads; a workload's UPDATE is not."""

from datetime import UTC, datetime, timedelta

from collectors.batch import poll_server
from dashboards.analysis.statements import rank
from store import statement_reads


def run_updates(mariadb, schema: str, count: int) -> None:
    conn = mariadb.connect()
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE IF NOT EXISTS {schema}")
        cur.execute(f"USE {schema}")
        cur.execute("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, k INT) ENGINE=InnoDB")
        cur.execute("INSERT IGNORE INTO t VALUES (1, 0), (2, 0), (3, 0)")
        for i in range(count):
            cur.execute("UPDATE t SET k = k + 1 WHERE id = %s", (i % 3 + 1,))
    conn.close()


def test_our_polls_are_monitoring_reads_and_the_workload_ranks_first(server, mariadb):
    since = datetime.now(UTC)
    poll_server(server.id, only=["statements"])  # the digest read's baseline
    for _ in range(3):
        poll_server(server.id)  # every source: the shared statement among them
    run_updates(mariadb, "stmt_monitoring", 3000)
    poll_server(server.id, only=["statements"])  # what moved since the baseline, and its texts
    rows = statement_reads.totals(server.id, since, datetime.now(UTC) + timedelta(seconds=1))
    update = next(r for r in rows if r.schema == "stmt_monitoring" and r.text.startswith("UPDATE"))
    shared = [r for r in rows if r.text.startswith("SELECT ( SELECT `CONCAT_WS`")]  # collectors/shared_read.py
    digest_read = [r for r in rows if "events_statements_summary_by_digest" in r.text]
    assert shared and digest_read
    assert all(r.monitoring for r in shared + digest_read) and not update.monitoring
    ranked = rank(rows)
    assert update in ranked.rows and not any(r.monitoring for r in ranked.rows)
    assert ranked.monitoring is not None
    assert ranked.monitoring.time_ps == sum(r.sums["time_ps"] for r in rows if r.monitoring)


def test_our_hourly_read_of_the_digest_tables_size_is_a_monitoring_read(server, mariadb):
    """Seen live: a sysbench run on MariaDB (its prepared statements leave no digest) ranked this monitor's own
    read of performance_schema_digests_size first, 100 % of the run's statement time, and the waits page named
    it as the statement that made wait/io/table/sql/handler. Between the two reads only the source's own
    statements run, the size read among them: every one of them is a monitoring read."""
    since = datetime.now(UTC)
    poll_server(server.id, only=["statements"])  # a first read asks the table's size
    poll_server(server.id, only=["statements"])  # which moved its digest since
    rows = statement_reads.totals(server.id, since, datetime.now(UTC) + timedelta(seconds=1))
    assert rows
    assert [r.text for r in rows if not r.monitoring] == []
