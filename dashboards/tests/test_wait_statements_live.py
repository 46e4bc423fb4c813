"""On the suite's MariaDB: a SELECT blocked by another session's LOCK TABLES makes a metadata-lock wait; the waits
page links that wait to the Statements tab ranked by lock time, which names the blocked SELECT first with the
SUM_LOCK_TIME the digest table gained (read here before and after), though a longer SLEEP tops total time."""

import html
import re
import threading
import time
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from testing.dashboards import get_csv
from testing.polling import statements_polled_at
from testing.servers import make_server

pytestmark = pytest.mark.django_db
MDL = "wait/synch/cond/sql/MDL_context::COND_wait_status"
SOURCES = ["pfs_waits", "statements"]
BLOCKED = "SELECT COUNT(*) FROM waitstmt.t"
HELD_S = 1.5  # the lock holder sleeps this long once the SELECT waits
OTHER_SLEEP_S = 3.5  # an unrelated session's SLEEP: more total time than the blocked SELECT, no lock time
LOCK_TIME = ("SELECT COALESCE(SUM(SUM_LOCK_TIME), 0), COALESCE(SUM(COUNT_STAR), 0)"
             " FROM performance_schema.events_statements_summary_by_digest"
             " WHERE DIGEST_TEXT LIKE 'SELECT COUNT ( * ) FROM `waitstmt` . `t`%'")


def poll_time(server):
    return statements_polled_at(server.id, SOURCES)


def run_blocked(mariadb, took: list[float]) -> None:
    conn = mariadb.connect()
    try:
        t0 = time.perf_counter()
        with conn.cursor() as cur:
            cur.execute(BLOCKED)
        took.append(time.perf_counter() - t0)
    finally:
        conn.close()


def wait_until_blocked(conn, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        " WHERE STATE LIKE 'Waiting for table metadata lock' AND INFO = %s", (BLOCKED,))
            if cur.fetchone()[0]:
                return
        time.sleep(0.01)
    raise AssertionError(f"the SELECT did not wait for the metadata lock within {within_s} s")


def block_a_select(mariadb) -> float:
    """The SELECT blocked HELD_S by LOCK TABLES ... WRITE; the seconds its client waited for it."""
    holder, took = mariadb.connect(), list[float]()
    try:
        with holder.cursor() as cur:
            cur.execute("LOCK TABLES waitstmt.t WRITE")
        reader = threading.Thread(target=run_blocked, args=(mariadb, took))
        reader.start()
        wait_until_blocked(holder)
        with holder.cursor() as cur:
            cur.execute(f"DO SLEEP({HELD_S})")
            cur.execute("UNLOCK TABLES")
        reader.join(10)
    finally:
        holder.close()
    assert took, "the blocked SELECT did not finish"
    return took[0]


def test_a_metadata_lock_wait_links_the_statements_that_waited_for_it(admin_client, mariadb):
    mariadb.execute("CREATE DATABASE IF NOT EXISTS waitstmt",
                    "CREATE TABLE IF NOT EXISTS waitstmt.t (id INT PRIMARY KEY) ENGINE=InnoDB",
                    "INSERT IGNORE INTO waitstmt.t VALUES (1)")
    server = make_server("wait-statements", mariadb.port)
    first = poll_time(server)  # the baselines
    before = mariadb.execute(LOCK_TIME)[0]
    took = block_a_select(mariadb)
    mariadb.execute(f"DO SLEEP({OTHER_SLEEP_S})")
    after = mariadb.execute(LOCK_TIME)[0]
    last = poll_time(server)
    lock_ps, execs = int(after[0]) - int(before[0]), int(after[1]) - int(before[1])
    assert execs == 1 and lock_ps >= 0.9 * HELD_S * 1e12  # its lock time holds its wait for the metadata lock
    assert lock_ps <= took * 1e12  # and no more than its client waited
    query = {"from": (first - timedelta(seconds=1)).isoformat(), "to": (last + timedelta(seconds=1)).isoformat()}

    waits = html.unescape(admin_client.get(f"/servers/{server.pk}/waits/?{urlencode(query)}").content.decode())
    row = waits[waits.index("MDL_context::COND_wait_status"):]
    href = re.search(r'<a href="(/servers/\d+/statements/\?[^"]+)">statements by lock time</a>', row[:2000]).group(1)
    assert "order=lock" in href and "wait=wait%2Fsynch%2Fcond%2Fsql%2FMDL_context%3A%3ACOND_wait_status" in href

    said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", waits))
    # the top wait's answer under the table: the blocked SELECT, with the lock time read from the digest table above
    assert f"Which statements made {MDL}, the top wait: by lock time" in said
    assert (f"SELECT COUNT ( * ) FROM `waitstmt` . `t` {lock_ps / 1e12:.2f} s of lock time,"
            in said), said[said.index("the top wait"):][:1500]

    page = html.unescape(admin_client.get(href).content.decode())
    assert f"Which statements made the wait {MDL}: ranked by lock time" in re.sub(r"<[^>]+>", "", page)
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, order="lock", **query)
    head = rows[0]
    first_row = dict(zip(head, rows[1], strict=True))
    assert first_row["statement"].startswith("SELECT COUNT ( * ) FROM `waitstmt` . `t`")
    assert first_row["lock time (s)"] == str(lock_ps / 1e12)  # the digest table's own delta, read above
    by_time = get_csv(admin_client, "/export/statements.csv", server=server.pk, order="time", **query)
    assert by_time[1][3].startswith("DO `SLEEP`")  # 3.5 s + 1.5 s of SLEEP outweigh the SELECT's 1.5 s wait
