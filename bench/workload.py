"""Seed 000's experiment with our own driver: what performance_schema and our polling cost in TPS.

Starts a private MariaDB and drives `manage.py stress`'s workload on it (the
StressDriver, read-only and read+write), alternating the cases round by round
so a busy shared machine slows all cases alike; prints the median TPS per case
and the ratio to the baseline:

- performance_schema OFF vs ON (with the wait/synch instruments timed),
- no monitoring vs our cheap sources polled every second (pfs ON).

The seed measured -7% (read-only) and -20% (read+write) for pfs ON on MySQL
5.5 with 32 sessions on 16 cores; this box is much smaller, so read the
ratios, not the absolute TPS.

    .venv/bin/python bench/workload.py [--seconds 10] [--rounds 3] [--concurrency 4]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from collectors.poll import poll_target  # noqa: E402
from collectors.pool import POOL  # noqa: E402
from collectors.pool import Target as PollTarget  # noqa: E402
from collectors.snapshots import Saved  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402
from workload.driver import StressDriver, StressOptions  # noqa: E402
from workload.target import Target  # noqa: E402

CHEAP = ["global_status", "pfs_waits", "history_length", "innodb_metrics"]
# SHOW STATUS history length: the undo purge still has to remove.
HISTORY_LENGTH = "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'"


def drive(server: SandboxMariaDB, mode: str, seconds: float, concurrency: int) -> float:
    target = Target(name="bench", user="root", password="", host="127.0.0.1", port=server.port)
    driver = StressDriver(target, StressOptions(mode=mode, concurrency=concurrency, duration=seconds,
                                                interval=seconds), report=lambda _: None)
    driver.prepare()
    return driver.run().avg


def settle(server: SandboxMariaDB) -> None:
    """Let purge finish the previous case's undo and warm the buffer pool: both would slow the next case."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if int(server.execute(HISTORY_LENGTH)[0][1]) < 1000:
            break
        time.sleep(0.5)
    drive(server, "ro", 1, 2)


def tps(server: SandboxMariaDB, mode: str, seconds: float, concurrency: int) -> float:
    settle(server)
    return drive(server, mode, seconds, concurrency)


def polled(server: SandboxMariaDB, run):
    """run() while our cheap sources poll the server every second, as the monitoring user."""
    target = PollTarget(1, "bench", "127.0.0.1", server.port, "", "steady", "s3cret!")
    stop = threading.Event()
    saved: Saved = ({}, {})  # the previous readings, kept here as the standalone collector keeps them

    def poll():
        while not stop.wait(1.0):
            result = poll_target(target, 1, only=CHEAP, saved=saved)
            saved[0].update(result.snapshots)
            saved[1].update(result.attempts)

    settle(server)
    poller = threading.Thread(target=poll)
    poller.start()
    try:
        return run()
    finally:
        stop.set()
        poller.join()


def report(title: str, cases: dict[str, list[float]], baseline: str) -> None:
    base = statistics.median(cases[baseline])
    print(title)
    for name, values in cases.items():
        median = statistics.median(values)
        print(f"  {name:<28} median TPS {median:9.1f}  ({median / base - 1:+.1%})   rounds: "
              + ", ".join(f"{v:.0f}" for v in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-workload-"))
    server = SandboxMariaDB(base / "data")
    try:
        server.start()
        server.create_monitor_user("steady", "s3cret!")
        run(server, args)
    finally:
        POOL.close_all()
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def run(server: SandboxMariaDB, args) -> None:
    n, secs = args.concurrency, args.seconds
    print(f"MariaDB sandbox, {n} sessions, {secs:g} s per measurement, {args.rounds} rounds, {os.cpu_count()} CPUs")
    pfs = {f"{mode} pfs {state}": [] for mode in ("ro", "rw") for state in ("OFF", "ON")}
    poll = {"rw, not monitored": [], "rw, polled every 1 s": []}
    for _ in range(args.rounds):
        for state in ("OFF", "ON"):
            server.restart(performance_schema=state == "ON")
            for mode in ("ro", "rw"):
                pfs[f"{mode} pfs {state}"].append(tps(server, mode, secs, n))
        poll["rw, not monitored"].append(tps(server, "rw", secs, n))
        poll["rw, polled every 1 s"].append(polled(server, lambda: drive(server, "rw", secs, n)))
    report("performance_schema (seed 000: -7% ro, -20% rw on MySQL 5.5):",
           {k: v for k, v in pfs.items() if k.startswith("ro")}, "ro pfs OFF")
    report("", {k: v for k, v in pfs.items() if k.startswith("rw")}, "rw pfs OFF")
    report("our polling (global_status, pfs_waits, history_length, innodb_metrics each second):",
           poll, "rw, not monitored")


if __name__ == "__main__":
    main()
