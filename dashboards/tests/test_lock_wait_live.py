"""On the suite's MariaDB, a session blocked by FLUSH TABLES WITH READ LOCK waits in the condition instrument
topwaits.LOCK_WAITS names, and the default ranking shows it."""

import threading
import time
from datetime import UTC, datetime, timedelta

from collectors.batch import poll_server
from dashboards import reads
from dashboards.analysis.topwaits import LOCK_WAITS, shown
from testing.servers import make_server

MDL = "wait/synch/cond/sql/MDL_context::COND_wait_status"
HELD_S = 2.0


def poll(server) -> None:
    result = poll_server(server.id, only=["pfs_waits"])
    found = next(s for s in result.sources if s.name == "pfs_waits")
    assert found.ok, found.error


def blocked_insert(mariadb, took: list[float]) -> None:
    conn = mariadb.connect()
    try:
        t0 = time.perf_counter()
        with conn.cursor() as cur:
            cur.execute("INSERT INTO lockwait.t VALUES (NULL)")
        took.append(time.perf_counter() - t0)
    finally:
        conn.close()


def blocked(conn, within_s: float = 10.0) -> None:
    """Once the insert waits for the lock (MariaDB 10.4+ names the backup lock FTWRL takes; its thread may start late
    on a loaded machine)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        " WHERE STATE LIKE 'Waiting for %lock' AND INFO LIKE 'INSERT INTO lockwait.t%'")
            if cur.fetchone()[0]:
                return
        time.sleep(0.01)
    raise AssertionError(f"the insert did not wait for the global read lock within {within_s} s")


def test_a_session_waiting_for_the_global_read_lock_is_ranked_as_a_wait(mariadb, db):
    mariadb.execute("CREATE DATABASE IF NOT EXISTS lockwait",
                    "CREATE TABLE IF NOT EXISTS lockwait.t (id INT AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB")
    server = make_server("ftwrl", mariadb.port)
    since = datetime.now(UTC)
    poll(server)
    holder, took = mariadb.connect(), []
    try:
        with holder.cursor() as cur:
            cur.execute("FLUSH TABLES WITH READ LOCK")
        writer = threading.Thread(target=blocked_insert, args=(mariadb, took))
        writer.start()
        blocked(holder)  # the lock is held HELD_S from the insert's wait, not from its thread's start (a loaded host)
        time.sleep(HELD_S)
        with holder.cursor() as cur:
            cur.execute("UNLOCK TABLES")
        writer.join(10)
    finally:
        holder.close()
    poll(server)
    kept, _hidden = shown(reads.interval_waits(server.id, since, datetime.now(UTC) + timedelta(seconds=1)))
    waited = {r.event: r.time_ps / 1e12 for r in kept}
    assert MDL in LOCK_WAITS and MDL in waited, sorted(waited)
    # The insert waited for the lock the whole time it was blocked, as its client measured (one session waiting).
    assert took and took[0] >= HELD_S * 0.9
    assert 0.9 * took[0] <= waited[MDL] <= took[0] + 0.5, (waited[MDL], took)
