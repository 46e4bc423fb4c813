"""Running `manage.py up` for real in a test: start it, wait for it, find its processes, wait for its log."""

import http.client
import os
import subprocess
import sys
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

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
    """Until this `up`'s own web server answers the login page; fails at once if another program holds the port
    (a port handed to `up` can be taken before its gunicorn binds it)."""
    port = urlsplit(url).port
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert up.poll() is None, log.read_text()[-3000:]
        holder = listener(port)
        if holder is not None:
            # A listener whose process is not known (another user's, or a socket not yet mapped to its process,
            # as gunicorn binds) is not judged: only its answer, the login page, can be this `up`'s.
            assert holder == -1 or var_of(holder) == var_of(up.pid), (
                f"port {port} is held by {holder_text(holder)}, not by this `up`'s web server:\n"
                + log.read_text()[-3000:])
            try:
                if urllib.request.urlopen(url + "/accounts/login/", timeout=2).status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
        time.sleep(0.3)
    raise AssertionError("the login page never answered:\n" + log.read_text()[-3000:])


def listener(port: int | None) -> int | None:
    """The pid listening on this TCP port (-1: another user's process), None if nothing listens."""
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
            return conn.pid if conn.pid is not None else -1
    return None


def var_of(pid: int) -> str | None:
    """The var/ directory a process of an `up` runs on: its children's, and a killed gunicorn's workers' still
    serving for a moment, are its own; another test process's server has its own, or none."""
    try:
        return psutil.Process(pid).environ().get("STEADYSTATE_VAR")
    except (psutil.Error, ValueError):
        return None


def holder_text(pid: int) -> str:
    try:
        return f"pid {pid} ({' '.join(psutil.Process(pid).cmdline())[:200]})"
    except psutil.Error:
        return f"pid {pid} (another user's process, or gone)"


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
