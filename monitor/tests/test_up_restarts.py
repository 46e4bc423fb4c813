"""`up` survives what dies: kill -9 of a child, of the embedded Redis or PostgreSQL, of the demo MariaDB.

Each test runs `up` for real on a var/ directory of its own (testing/up.py), kills
something with SIGKILL and waits, bounded, for `up` to say it started it again and
for the thing to run again, `up` itself never stopping; five crashes in a row are
mailed, once, to a real SMTP inbox.
"""

import os
import shutil
import signal
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest
import redis

from testing.mariadb import free_port
from testing.servers import PASSWORD
from testing.up import add_server, child, daemon, start_up, wait_for_log, wait_for_login_page, wait_for_poll_after


@pytest.fixture
def var():
    path = Path(tempfile.mkdtemp(prefix="ssup-"))
    os.chmod(path, 0o755)  # pgserver runs postgres as its own user when root
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def running_up(var, tmp_path, inbox, settings):
    """(up, its log, its URL): `up --no-demo` on its own var/ mailing the inbox, answering; Ctrl-C afterwards."""
    port = free_port()
    log = tmp_path / "up.log"
    up = start_up(var, port, log, args=("--no-demo",), ALERT_RECIPIENTS="oncall@example.com",
                  EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(settings.EMAIL_PORT))
    try:
        wait_for_login_page(up, f"http://127.0.0.1:{port}", log)
        yield up, log, f"http://127.0.0.1:{port}"
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(60)


def test_killed_children_are_started_again(running_up):
    up, log, url = running_up
    children = (("worker", "worker"), ("beat", "beat"), ("watchdog", "watchdog"), ("web", "monitor.wsgi:application"))
    for name, word in children:
        victim = child(up, word)
        victim.kill()
        wait_for_log(up, log, f"up: {name} exited with code -9: restarting it in 1 s")
        wait_for_log(up, log, f"up: restarted {name} (pid")
        successor = child(up, word)
        assert successor and successor.pid != victim.pid and successor.is_running()
    wait_for_login_page(up, url, log, timeout=30)  # the new gunicorn serves (the old workers freed the port)
    assert up.poll() is None


def test_a_crash_loop_is_mailed_once_and_up_goes_on(running_up, inbox):
    """Five crashes of the watchdog within five minutes: waits of 1, 2, 4 and 8 s, then one mail."""
    up, log, url = running_up
    for crash in range(1, 6):
        victim = child(up, "watchdog")
        victim.kill()
        wait_for_log(up, log, f"up: watchdog exited with code -9: restarting it in {2 ** (crash - 1)} s "
                              f"({crash} crash(es) in the last 5 min)")
        if crash < 5:
            wait_for_log(up, log, "up: restarted watchdog (pid", count=crash, timeout=20)
    deadline = time.monotonic() + 15
    while not inbox.messages and time.monotonic() < deadline:
        time.sleep(0.2)
    assert inbox.subjects() == ["[SteadyState] watchdog keeps crashing"]
    assert "watchdog crashed 5 times within 5 minutes (last: it exited with code -9)" in inbox.text(0)
    # With SITE_URL unset, the link is where this `up` serves (its --port), as in the watchdog's own mails.
    assert inbox.text(0).split()[-1] == f"{url}/", inbox.text(0)
    wait_for_log(up, log, "up: restarted watchdog (pid", count=5, timeout=30)  # and it goes on
    assert up.poll() is None and len(inbox.messages) == 1


def test_killed_embedded_redis_and_postgresql_are_started_again_and_polling_resumes(running_up, var, mariadb):
    up, log, url = running_up
    add_server(var, "db", mariadb.port, PASSWORD, 1)
    wait_for_poll_after(var, datetime.now(UTC))
    old_redis = daemon(var / "redis.pid")
    old_redis.kill()
    wait_for_log(up, log, "up: redis is not running any more: restarting it in 1 s")
    wait_for_log(up, log, "up: restarted redis")
    assert redis.Redis(unix_socket_path=str(var / "redis.sock"), socket_timeout=2).ping()
    assert daemon(var / "redis.pid").pid != old_redis.pid
    wait_for_poll_after(var, datetime.now(UTC))  # worker and beat found their Redis again

    old_pg = daemon(var / "pg" / "postmaster.pid")
    old_pg.kill()
    wait_for_log(up, log, "up: postgresql is not running any more: restarting it in 1 s")
    wait_for_log(up, log, "up: restarted postgresql", timeout=45)
    postmaster = daemon(var / "pg" / "postmaster.pid")
    assert postmaster.pid != old_pg.pid and postmaster.status() != psutil.STATUS_ZOMBIE
    # The web reads PostgreSQL again: a page behind the login redirects (the session table is read).
    deadline = time.monotonic() + 20
    while urllib.request.urlopen(url + "/accounts/login/", timeout=5).status != 200:
        assert time.monotonic() < deadline
    wait_for_poll_after(var, datetime.now(UTC))  # polls are recorded in PostgreSQL again
    assert up.poll() is None


def test_a_killed_demo_mariadb_is_started_again_and_up_goes_on(var, tmp_path):
    port = free_port()
    log = tmp_path / "up.log"
    up = start_up(var, port, log, args=("--demo",))
    try:
        wait_for_login_page(up, f"http://127.0.0.1:{port}", log)
        wait_for_log(up, log, "registered as server 'local'")
        mariadbd = daemon(var / "demo-mariadb" / "data" / "mariadbd.pid")
        mariadbd.kill()
        wait_for_log(up, log, "up: demo-mariadb is not running any more: restarting it in 1 s")
        wait_for_log(up, log, "up: restarted demo-mariadb", timeout=60)
        again = daemon(var / "demo-mariadb" / "data" / "mariadbd.pid")
        assert again.pid != mariadbd.pid and again.is_running()
        assert up.poll() is None and "stopping everything" not in log.read_text()
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(90)
    assert up.returncode == 0, log.read_text()[-3000:]
