"""A pytest run killed before it stops its servers leaves none of them behind (testing/reaper.py).

A SIGTERM (what `timeout` and a CI's cancel send) ends Python at once: no atexit, no fixture finalizer, as
a SIGKILL or pytest-timeout's os._exit. Each left the run's PostgreSQL, Redis and MariaDB running, with
their temp dirs. (Under pytest-xdist a killed controller's workers die with it, and their reapers stop
theirs: seen by hand, SIGTERM and SIGKILL, within 12 s.)
"""

import json
import os
import signal
import subprocess
import sys
import time

import psutil
from django.conf import settings

from testing.killed_run import REPORT

CHILD = "testing/killed_run.py"
STARTED_WITHIN = 180  # s: the child's PostgreSQL, Redis and MariaDB start from nothing
# The child's own servers and ports (testing/ports.py gives a pytest-xdist worker name its own range).
LEFT_OUT = ("DATABASE_URL", "REDIS_URL", "STEADYSTATE_TEST_SERVERS_OF", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST")


def child_env(report) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
    return {**env, REPORT: str(report), "PYTEST_XDIST_WORKER": "gw9"}


def started(tmp_path, child: subprocess.Popen, log) -> dict:
    """What the child's test wrote once its servers were up."""
    report = tmp_path / "report.json"
    deadline = time.monotonic() + STARTED_WITHIN
    while not report.exists():
        assert child.poll() is None, f"the child run ended first: {log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"the child's servers never came up: {log.read_text()[-3000:]}"
        time.sleep(0.2)
    return json.loads(report.read_text())


def left_behind(found: dict, created: dict[str, float], within: float) -> list[str]:
    """The child's servers still running and dirs still there after up to `within` seconds (a zombie has exited)."""
    deadline = time.monotonic() + within
    while True:
        alive = [name for name, pid in found["pids"].items() if running(pid, created[name])]
        alive += [d for d in found["dirs"] if os.path.exists(d)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def running(pid: int, created: float) -> bool:
    try:
        process = psutil.Process(pid)
        return process.create_time() == created and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_a_run_killed_by_sigterm_leaves_no_server_and_no_dir_behind(tmp_path):
    log = tmp_path / "child.log"
    with log.open("w") as out:
        child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CHILD],
                                 cwd=settings.BASE_DIR, env=child_env(tmp_path / "report.json"), stdout=out,
                                 stderr=subprocess.STDOUT)
    try:
        found = started(tmp_path, child, log)
        created = {name: psutil.Process(pid).create_time() for name, pid in found["pids"].items()}
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert left_behind(found, created, within=40) == []
