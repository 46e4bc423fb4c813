"""manage.py up, for real: embedded servers, web, worker and beat, then nothing left after Ctrl-C."""

import http.cookiejar
import os
import re
import shutil
import signal
import stat
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest
from aiosmtpd.controller import Controller

from monitor.management.commands.up import answers
from monitor.runtime import node_exporter
from monitor.runtime.supervisor import Child, Group
from testing.mariadb import free_port
from testing.up import our_processes, start_up, wait_for_log, wait_for_login_page


@pytest.fixture
def var():
    path = Path(tempfile.mkdtemp(prefix="ssup-"))
    os.chmod(path, 0o755)  # pgserver runs postgres as its own user when root
    yield path
    shutil.rmtree(path, ignore_errors=True)


def log_in(url: str, password: str) -> str:
    """Log in as admin with a CSRF token, like a browser; return the /servers/ page."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login = opener.open(url + "/accounts/login/").read().decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login)
    assert found, "no CSRF token on the login page"
    token = found[1]
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "username": "admin", "password": password,
                                   "next": "/servers/"}).encode()
    return opener.open(urllib.request.Request(url + "/accounts/login/", data, headers={"Referer": url})).read().decode()


def assert_all_gone(procs: list[psutil.Process], var: Path) -> None:
    alive = [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not alive, [" ".join(p.cmdline()) for p in alive]
    names = {"postgres", "redis-server", "gunicorn", "celery", "mariadbd"}  # mariadbd: the demo, if on
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if str(var) in cmdline:
            assert not names & set(re.split(r"[\s/]+", cmdline)), cmdline


def test_it_runs_everything_and_leaves_nothing_after_ctrl_c(var, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    up = start_up(var, port, tmp_path / "up1.log")
    try:
        wait_for_login_page(up, url, tmp_path / "up1.log")
        procs = our_processes(up, var)
        cmdlines = " ".join(" ".join(p.cmdline()) for p in procs)
        assert "gunicorn" in cmdlines and "worker" in cmdlines and "beat" in cmdlines
        if node_exporter.find():  # the demo server's host statistics (make test installs it)
            assert f"{node_exporter.find()} --web.listen-address=127.0.0.1:" in cmdlines
            assert "host statistics from node_exporter on 127.0.0.1:" in (tmp_path / "up1.log").read_text()
        password_file = var / "admin-password"
        assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
        password = password_file.read_text().strip()
        assert f"admin / {password}" in (tmp_path / "up1.log").read_text()  # printed once
        assert "<h1>Servers</h1>" in log_in(url, password)
        assert urllib.request.urlopen(url + "/static/css/app.css").status == 200  # whitenoise
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(60)
    log = (tmp_path / "up1.log").read_text()
    assert up.returncode == 0, log[-3000:]
    assert "up: stopped, nothing left running." in log
    assert_all_gone(procs, var)

    # A second `up` reuses the data: same admin password, none printed. This time a child
    # dies: `up` says so and starts it again, the others run on.
    up = start_up(var, port, tmp_path / "up2.log")
    try:
        wait_for_login_page(up, url, tmp_path / "up2.log")
        assert "<h1>Servers</h1>" in log_in(url, password)
        beat = next(p for p in psutil.Process(up.pid).children() if "beat" in p.cmdline())
        beat.kill()
        wait_for_log(up, tmp_path / "up2.log", "up: restarted beat (pid")
        assert up.poll() is None
        procs = our_processes(up, var)
    finally:
        up.send_signal(signal.SIGINT)
        up.wait(60)
    log = (tmp_path / "up2.log").read_text()
    assert "created the admin user" not in log and password not in log
    assert "up: beat exited with code -9: restarting it in 1 s" in log
    assert up.returncode == 0
    assert_all_gone(procs, var)


def test_it_refuses_a_port_in_use(var, tmp_path):
    with __import__("socket").socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        # With the test's own Postgres/Redis URLs: no embedded servers to start for this one.
        up = start_up(var, busy.getsockname()[1], tmp_path / "up.log", embedded=False)
        up.wait(60)
    assert up.returncode == 1
    assert "choose another port with PORT=8001" in (tmp_path / "up.log").read_text()


def test_another_program_answering_on_its_port_is_not_its_web_server():
    # Another test's SMTP sink once took the port between free_port() and gunicorn's bind: its greeting
    # ("220 ... SMTP") is no HTTP status line, which stopped `up` with a traceback.
    smtp = Controller(object(), hostname="127.0.0.1", port=free_port())
    smtp.start()
    try:
        assert answers(f"http://127.0.0.1:{smtp.port}/accounts/login/") is False
    finally:
        smtp.stop()


def test_it_names_an_unreachable_redis_without_its_password(var, tmp_path):
    up = start_up(var, free_port(), tmp_path / "up.log", embedded=False, REDIS_URL="redis://:pw-in-url@127.0.0.1:1/0")
    up.wait(60)
    log = (tmp_path / "up.log").read_text()
    assert up.returncode == 1
    assert "Cannot reach Redis at 127.0.0.1:1/0" in log and "Check REDIS_URL" in log
    assert "pw-in-url" not in log


def test_the_group_stops_every_child_and_their_children():
    group = Group([Child("sleeper", ["sh", "-c", "sleep 300 & sleep 300"]), Child("quitter", ["sh", "-c", "exit 3"])],
                  log=lambda _: None)
    group.start()
    deadline = time.monotonic() + 10
    while not group.first_exited() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group.first_exited().name == "quitter"
    sleepers = psutil.Process(group.children[0].pid).children(recursive=True) + [psutil.Process(group.children[0].pid)]
    group.stop(timeout=5)
    assert not [p for p in sleepers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
