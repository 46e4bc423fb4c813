"""Collection files in tests: running `manage.py collect` as its own process, and reading a file independently.

The reader here is the format as docs/collect.md states it (gzip members, one JSON record each), written
apart from collectors.collect_file so that a test compares the loader with the documented format.
"""

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from testing.servers import PASSWORD

ROOT = Path(__file__).resolve().parent.parent
# Addresses where nothing listens: a collector that touched PostgreSQL or Redis would fail.
NOWHERE = {"DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none", "REDIS_URL": "redis://127.0.0.1:1/0"}


def server_url(port: int, query: str = "") -> str:
    return f"mysql://steady@127.0.0.1:{port}" + (f"?{query}" if query else "")


def collector_env(password: str = PASSWORD) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL")}
    return {**env, **NOWHERE, "MYSQL_PWD": password, "PYTHONUNBUFFERED": "1"}


def start_collect(port: int, path: Path, *args: str, module: bool = False, query: str = "",
                  password: str = PASSWORD) -> subprocess.Popen:
    """`manage.py collect` (or `python -m collectors.standalone collect`) in its own process."""
    entry = ["-m", "collectors.standalone", "collect"] if module else [str(ROOT / "manage.py"), "collect"]
    return subprocess.Popen([sys.executable, *entry, server_url(port, query), "--to", str(path), *args], cwd=ROOT,
                            env=collector_env(password), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def records(path: Path) -> list[dict]:
    """Every record of a file, by the documented format: gzip members of one JSON line each."""
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]


def polls(path: Path) -> list[dict]:
    try:
        return [r for r in records(path) if r["type"] == "poll"]
    except (EOFError, OSError, ValueError):  # the collector is writing its next record right now
        return []


def wait_for_polls(path: Path, count: int, timeout: float) -> None:
    deadline = time.time() + timeout
    while len(polls(path)) < count:
        if time.time() > deadline:
            raise AssertionError(f"{path}: fewer than {count} polls after {timeout} s")
        time.sleep(0.2)


def reencode(lines: list[dict]) -> bytes:
    """Records as a collection file, each its own gzip member (as the format says)."""
    return b"".join(gzip.compress((json.dumps(r) + "\n").encode(), mtime=0) for r in lines)


class WriteLoad(threading.Thread):
    """Explicit transactions on the test MariaDB until stopped (testing.collectors.Load, in small batches)."""

    def __init__(self, load):
        super().__init__(daemon=True)
        self.load, self.stopping = load, threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.load.transactions(20)
            time.sleep(0.05)

    def stop(self) -> None:
        self.stopping.set()
        self.join()


def hand_made(commits: list[int], every: float = 10.0, t0: float = 1767607200.0) -> list[dict]:
    """Records of a collection whose global_status read Com_commit totals `commits`, `every` seconds apart."""
    header = {"type": "header", "format": "steadystate-collection", "version": 1, "interval": int(every),
              "started_at": t0, "server": {"address": "lab-db:3306", "host": "lab-db", "port": 3306,
                                           "socket": "", "user": "steady"}}
    out = [header]
    for i, total in enumerate(commits):
        at = t0 + i * every
        reading = {"source": "global_status", "read_at": at, "boot": t0 - 3600,
                   "values": {"Com_commit": total, "Threads_running": 2, "Uptime": 3600 + int(i * every)},
                   "counters": ["Com_commit"], "reset_markers": ["Uptime"]}
        out.append({"type": "poll", "at": at, "readings": [reading], "failed": []})
    return [*out, {"type": "end", "at": t0 + len(commits) * every, "polls": len(commits)}]
