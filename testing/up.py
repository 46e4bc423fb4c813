"""Running `manage.py up` for real in a test: start it, wait for it, find its processes, wait for its log."""

import os
import subprocess
import sys
import time
import urllib.request
from datetime import datetime
from pathlib import Path

import psutil
import psycopg

BASE_DIR = Path(__file__).resolve().parents[1]


def start_up(var: Path, port: int, log: Path, embedded: bool = True, args: tuple[str, ...] = (),
             **extra_env: str) -> subprocess.Popen:
    """`up` on this var/ directory and port, its output in `log`; embedded: its own PostgreSQL and Redis."""
    env = {k: v for k, v in os.environ.items() if not embedded or k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(STEADYSTATE_VAR=str(var), DJANGO_SETTINGS_MODULE="monitor.settings", **extra_env)
    cmd = [sys.executable, "manage.py", "up", "--port", str(port), "--web-workers", "1", "--worker-concurrency", "2",
           *args]
    return subprocess.Popen(cmd, cwd=BASE_DIR, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def wait_for_login_page(up, url: str, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert up.poll() is None, log.read_text()[-3000:]
        try:
            if urllib.request.urlopen(url + "/accounts/login/", timeout=2).status == 200:
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("the login page never answered:\n" + log.read_text()[-3000:])


def wait_for_log(up, log: Path, text: str, timeout: float = 30, count: int = 1) -> None:
    """Until `up` printed this text `count` times (or fail with its log's end)."""
    deadline = time.monotonic() + timeout
    while log.read_text().count(text) < count:
        assert up.poll() is None, f"up exited: {log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no {text!r} within {timeout} s:\n{log.read_text()[-3000:]}"
        time.sleep(0.2)


def child(up, word: str) -> psutil.Process | None:
    """up's direct child whose command line has this word (gunicorn, worker, beat, watchdog, stress)."""
    for proc in psutil.Process(up.pid).children():
        try:
            if word in proc.cmdline():
                return proc
        except psutil.Error:
            continue
    return None


def daemon(pidfile: Path) -> psutil.Process:
    """The process a pid file names (the embedded servers daemonize: not up's children)."""
    return psutil.Process(int(pidfile.read_text().split()[0]))


def our_processes(up, var: Path) -> list[psutil.Process]:
    """up's descendants, plus the embedded servers (daemons, so not descendants) and their children."""
    procs = psutil.Process(up.pid).children(recursive=True)
    postmaster = daemon(var / "pg" / "postmaster.pid")
    return procs + [postmaster, daemon(var / "redis.pid")] + postmaster.children(recursive=True)


def add_server(var: Path, name: str, port: int, password: str, interval: int) -> None:
    """`manage.py addserver` into the database of the `up` on this var/ (the embedded PostgreSQL)."""
    subprocess.run([sys.executable, "manage.py", "addserver", name, "--host", "127.0.0.1", "--port", str(port),
                    "--user", "steady", "--password-env", "SERVER_PW", "--interval", str(interval)],
                   cwd=BASE_DIR, check=True, capture_output=True, timeout=60,
                   env=dict(os.environ, STEADYSTATE_VAR=str(var), DJANGO_SETTINGS_MODULE="monitor.settings",
                            DATABASE_URL="", REDIS_URL="", SERVER_PW=password))


def last_success(var: Path) -> datetime | None:
    """The newest successful poll in the embedded PostgreSQL of this var/ (None if unreachable or none)."""
    try:
        with psycopg.connect(f"postgresql://postgres:@/postgres?host={var / 'pg'}", connect_timeout=2) as conn:
            row = conn.execute("SELECT max(last_success_at) FROM collectors_serverhealth").fetchone()
            return row[0] if row else None
    except psycopg.Error:
        return None


def wait_for_poll_after(var: Path, at: datetime, timeout: float = 60) -> datetime:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        polled = last_success(var)
        if polled and polled > at:
            return polled
        time.sleep(0.5)
    raise AssertionError(f"no successful poll after {at} within {timeout} s")
