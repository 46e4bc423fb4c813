"""A monitored server's error log and statement statistics stay clean of us."""

import subprocess
import sys
from pathlib import Path

from collectors.batch import poll_server
from collectors.connection import handshake_version
from collectors.pool import POOL, Target
from testing.child_env import child_env

BASE_DIR = Path(__file__).resolve().parent.parent.parent
USER_ERRORS_SQL = ("SELECT COALESCE(SUM(SUM_ERRORS), 0), COALESCE(SUM(COUNT_STAR), 0) FROM "
                   "performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = 'steady'")


def status(mariadb, name: str) -> int:
    return int(mariadb.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")[0][1])


def aborted_lines(mariadb) -> list[str]:
    text = (Path(mariadb.datadir) / "error.log").read_text(errors="replace")
    return [line for line in text.splitlines() if "Aborted connection" in line and "user: 'steady'" in line]


def test_the_poll_command_closes_its_connection_on_exit(transactional_db, make_server, mariadb):
    make_server("clean-exit", mariadb.port)
    aborted, logged = status(mariadb, "Aborted_clients"), len(aborted_lines(mariadb))
    done = subprocess.run([sys.executable, "manage.py", "poll", "clean-exit", "--source", "global_status"],
                          cwd=BASE_DIR, env=child_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "global_status: ok" in done.stdout
    assert status(mariadb, "Aborted_clients") == aborted
    assert len(aborted_lines(mariadb)) == logged


def test_a_new_connection_sets_only_variables_the_server_has(server, mariadb):
    errors, statements = (int(v) for v in mariadb.execute(USER_ERRORS_SQL)[0])
    result = poll_server(server.id, only=["global_status"])
    assert result.ok and result.connected_now
    after_errors, after_statements = (int(v) for v in mariadb.execute(USER_ERRORS_SQL)[0])
    assert after_statements > statements  # the counters are live: our statements were counted
    assert after_errors == errors
    # MariaDB's statement timeout is in force on our session (seconds; the server default is 0, none).
    entry = POOL.get(Target.from_server(server))
    with entry.conn.cursor() as cur:
        cur.execute("SELECT @@SESSION.max_statement_time, @@SESSION.lock_wait_timeout")
        assert tuple(float(v) for v in cur.fetchone()) == (5, 2)


def test_handshake_versions_of_both_flavors():
    assert handshake_version("5.5.5-10.11.6-MariaDB-0+deb12u1") == ("mariadb", (10, 11, 6))
    assert handshake_version("10.11.6-MariaDB") == ("mariadb", (10, 11, 6))
    assert handshake_version("8.0.36") == ("mysql", (8, 0, 36))
    assert handshake_version("5.7.44-log") == ("mysql", (5, 7, 44))
