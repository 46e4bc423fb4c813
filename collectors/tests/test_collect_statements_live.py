"""`manage.py collect` reads the statement digests into its file, and `load` stores the digest rows a poll would.

A known number of statements runs on the suite's MariaDB between the collector's reads; the loaded rows
count them (within 2 %), and loading again stores no row twice.
"""

import signal
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from collectors.collect_file import CorruptFile
from collectors.replay import load
from servers.models import Server
from store import statement_reads
from testing.collect import polls, records, reencode, start_collect

SCHEMA = "collect_stmt"
SELECTS, UPDATES = 300, 100


def statement_readings(path) -> list[dict]:
    return [r for p in polls(path) for r in p["readings"] if r["source"] == "statements"]


def wait_for_reads(path, count: int, after: float, timeout: float = 60) -> None:
    """Until count statements readings were read after the epoch second `after`."""
    deadline = time.time() + timeout
    while sum(r["read_at"] > after for r in statement_readings(path)) < count:
        if time.time() > deadline:
            raise AssertionError(f"{path}: fewer than {count} digest reads after {after} in {timeout} s")
        time.sleep(0.2)


def run_statements(mariadb) -> None:
    conn = mariadb.connect()
    with conn.cursor() as cur:
        cur.execute(f"USE {SCHEMA}")
        for i in range(SELECTS):
            cur.execute("SELECT v FROM t WHERE id = %s", (i % 5 + 1,))
            cur.fetchall()
        for i in range(UPDATES):
            cur.execute("UPDATE t SET v = v + 1 WHERE id = %s", (i % 5 + 1,))
    conn.close()


def stored_reads(server_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM store_statement WHERE server_id = %s", [server_id])
        return cur.fetchone()[0]


def test_collected_digests_load_as_the_statements_that_ran(tmp_path, mariadb, db):
    mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
    mariadb.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    mariadb.execute(f"INSERT IGNORE INTO {SCHEMA}.t VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")
    path = tmp_path / "digests.ssc"
    proc = start_collect(mariadb.port, path, "--interval", "1", "--statements-interval", "2")
    wait_for_reads(path, 1, 0)  # the baseline
    run_statements(mariadb)
    wait_for_reads(path, 2, time.time() + 1)  # LAST_SEEN has whole seconds: reads well after the last statement
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    readings = statement_readings(path)
    assert len(readings) >= 3 and all("raw" in r["extra"] for r in readings)

    report = load(path.read_bytes(), "digests", str(path))
    assert report.ended and report.digest_rows > 0
    rows = statement_reads.totals(report.server.id, datetime(2000, 1, 1, tzinfo=UTC),
                                  datetime.now(UTC) + timedelta(minutes=1))
    ours = {r.text.upper().split()[0]: r for r in rows if r.schema == SCHEMA and r.text}
    for verb, ran in (("SELECT", SELECTS), ("UPDATE", UPDATES)):
        assert abs(ours[verb].sums["execs"] - ran) <= 0.02 * ran, (verb, ours[verb].sums["execs"], ran)
    assert "v" in ours["UPDATE"].text and report.server.statements_interval == 10  # 2 s: below a server's least

    before = stored_reads(report.server.id)
    again = load(path.read_bytes(), "digests", str(path))
    assert again.server.id == report.server.id and stored_reads(report.server.id) == before


def test_a_damaged_digest_read_stores_nothing(tmp_path, mariadb, db):
    path = tmp_path / "bad.ssc"
    proc = start_collect(mariadb.port, path, "--interval", "1", "--statements-interval", "1", "--duration", "3")
    assert proc.wait(timeout=60) == 0
    lines = records(path)
    reading = next(r for line in lines if line["type"] == "poll" for r in line["readings"]
                   if r["source"] == "statements")
    reading["extra"]["raw"]["rows"] = [["app", "d", "not a time"]]
    with pytest.raises(CorruptFile, match="damaged"):
        load(reencode(lines), "bad")
    assert not Server.objects.filter(name="bad").exists()
