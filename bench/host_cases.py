"""CPU-bound or lock-bound? What the stability view's panels show for each, measured.

Starts a private MariaDB and node_exporter, polls them every 2 s through the real
poll path (SQL sources and node_exporter), and drives two known loads with the
stress driver:

- cpu-bound: read-only transactions on a table that fits the buffer pool, more
  sessions than CPUs: the CPU is the limit, nothing waits long;
- lock-bound: read+write transactions all on one row (--rows 1): every session
  queues behind the same row lock, so the CPU idles while TPS stays low.

Prints, per case, what the stability view draws: TPS, CPU busy / user / system /
iowait % of the host, and the top waits in seconds waited per second.

    .venv/bin/python bench/host_cases.py [--seconds 30] [--concurrency 8]
"""

import argparse
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from collectors.poll import poll_target  # noqa: E402
from collectors.pool import POOL  # noqa: E402
from collectors.pool import Target as PollTarget  # noqa: E402
from collectors.snapshots import Saved  # noqa: E402
from monitor.runtime.node_exporter import running  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402
from testing.mariadb import running_sandbox  # noqa: E402
from workload.driver import StressDriver, StressOptions  # noqa: E402
from workload.target import Target  # noqa: E402

SOURCES = ["global_status", "pfs_waits", "node_exporter"]
CPU_FIGURES = ("busy", "user", "system", "iowait")
CASES = {"cpu-bound": {"mode": "ro"}, "lock-bound": {"mode": "rw", "rows": 1}}


def poll_once(target: PollTarget, saved: Saved) -> dict:
    """One poll of the sources, the previous readings kept in saved (as the standalone collector keeps them)."""
    result = poll_target(target, 2, only=SOURCES, saved=saved)
    saved[0].update(result.snapshots)
    saved[1].update(result.attempts)
    return {s.name: s.sample for s in result.sources if s.sample is not None}


def poll_loop(target: PollTarget, stop: threading.Event, samples: list, saved: Saved) -> None:
    while not stop.wait(2.0):
        samples.append(poll_once(target, saved))


def figures(samples: list) -> dict[str, float]:
    """Means over the polls of the case: the figures the stability view plots."""
    out: dict[str, list[float]] = defaultdict(list)
    waits: dict[str, list[float]] = defaultdict(list)
    for poll in samples:
        status, host, pfs = poll.get("global_status"), poll.get("node_exporter"), poll.get("pfs_waits")
        if status and status.interval and "tps" in status.values:
            out["tps"].append(status.values["tps"] / status.interval)
        if host and host.interval:
            for name in CPU_FIGURES:
                out[name].append(host.values.get(f"host.cpu.{name}_pct", 0.0))
        if pfs and pfs.interval:
            for name, value in pfs.values.items():
                if name.startswith("wait.time_ps:") and "/cond/" not in name:
                    waits[name[len("wait.time_ps:"):]].append(value / 1e12 / pfs.interval)
    result = {name: statistics.mean(values) for name, values in out.items()}
    top = sorted(waits.items(), key=lambda kv: -statistics.mean(kv[1]))[:3]
    result["waits"] = [(event, statistics.mean(values)) for event, values in top]
    return result


def run_case(server: SandboxMariaDB, url: str, name: str, args) -> dict:
    options = StressOptions(concurrency=args.concurrency, duration=args.seconds, interval=args.seconds,
                            **CASES[name])
    driver = StressDriver(Target(name="bench", user="root", password="", host="127.0.0.1", port=server.port),
                          options, report=lambda _: None)
    driver.prepare()
    target = PollTarget(1, "bench", "127.0.0.1", server.port, "", "steady", "s3cret!", node_exporter_url=url)
    samples, stop, saved = [], threading.Event(), ({}, {})
    poll_once(target, saved)  # baseline
    poller = threading.Thread(target=poll_loop, args=(target, stop, samples, saved))
    poller.start()
    try:
        driver.run()
    finally:
        stop.set()
        poller.join()
    return figures(samples[1:])  # the first poll straddles the start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    try:
        with running_sandbox("bench-host-cases-") as server, running() as url:
            for name in CASES:
                time.sleep(5)  # let the previous case's purge settle
                found = run_case(server, url, name, args)
                cpu = ", ".join(f"{k} {found.get(k, 0):.0f} %" for k in CPU_FIGURES)
                waits = "; ".join(f"{event} {per_s:.3f} s/s" for event, per_s in found["waits"])
                print(f"{name:<11} load {os.getloadavg()[0]:.1f}: TPS {found.get('tps', 0):.0f}; CPU {cpu}; "
                      f"top waits: {waits}")
    finally:
        POOL.close_all()


if __name__ == "__main__":
    main()
