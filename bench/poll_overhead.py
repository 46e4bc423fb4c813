"""What 1 s polling costs the monitored server's throughput: none vs ours vs the exporter.

Starts a private MariaDB (performance_schema ON) and one long run of a saturating write
load (sysbench oltp_write_only, 2 threads, no rate limit, a TPS report every second).
While it runs, blocks of --block seconds follow each other in the order none, ours,
none, exporter, ...: in "ours" our poll runs every second (the worker's batch path, as
in bench/peer_cost.py), in "exporter" Debian's prometheus-mysqld-exporter is scraped
every second (same collectors as there). Each monitored block's TPS is compared with
the mean of the unmonitored blocks on either side of it, so the slow drift of a long
run (the buffer pool, purge, the machine) cancels out; the first second of a block,
when a monitor starts or stops, is left out.

By default MariaDB and sysbench get one CPU and the monitors (with this process's
Postgres and Redis) the other, as a monitoring host apart from the database host would
be (bench/cpus.py): what is measured is what the polls cost the server. --shared-cpus
leaves everything on all CPUs, where the monitors' client CPU counts too.

    make bench-deps
    .venv/bin/python bench/poll_overhead.py [--minutes 20] [--block 10]

The verdict uses a 95 % bootstrap interval of the mean per-block difference: "met" only
when the whole interval lies above -1 %.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import cpus  # noqa: E402
from bench.peer_cost import (  # noqa: E402
    OURS,
    PASSWORD,
    PEER,
    Exporter,
    Ours,
    exit_on_sigterm,
    prepare_load,
    stop_child,
    sysbench,
)
from collectors.pool import POOL  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402

CYCLE = ("none", "ours 1 s", "none", "exporter 1 s")
MONITORED = ("ours 1 s", "exporter 1 s")
REPORT_LINE = re.compile(r"^\[\s*\d+s \].* tps: ([\d.]+)")
SETTLE = 1.0  # seconds at the start of a block left out: a monitor starting or stopping
MIN_BLOCKS = 10  # fewer monitored blocks give a bootstrap interval that means nothing: no verdict


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20, help="length of the sysbench run")
    parser.add_argument("--block", type=float, default=10, help="seconds per block")
    parser.add_argument("--shared-cpus", action="store_true",
                        help="leave MariaDB and sysbench on the monitors' CPUs (bench/cpus.py)")
    return parser.parse_args()


class Reports:
    """sysbench's per-second TPS lines, each with the moment it arrived (the end of its second)."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.seconds: list[tuple[float, float]] = []  # (arrival, tps)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            match = REPORT_LINE.match(line)
            if match:
                self.seconds.append((time.monotonic(), float(match.group(1))))

    def within(self, start: float, end: float) -> list[float]:
        """TPS of the seconds wholly inside [start, end] (a report covers the second before it arrived)."""
        return [tps for at, tps in self.seconds if at - 1.0 >= start and at <= end]


@dataclass
class Block:
    case: str
    start: float
    end: float
    tps: list = field(default_factory=list)

    @property
    def mean(self) -> float:
        return statistics.mean(self.tps) if self.tps else float("nan")


def every_second(call, stop: threading.Event) -> threading.Thread:
    def loop():
        while not stop.wait(1.0):
            call()
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def run_block(case: str, seconds: float, ours: Ours, peer: Exporter) -> Block:
    start, stop = time.monotonic(), threading.Event()
    monitor = {"none": None, "ours 1 s": ours.poll, "exporter 1 s": peer.scrape}[case]
    thread = every_second(monitor, stop) if monitor else None
    time.sleep(max(0.0, start + seconds - time.monotonic()))
    stop.set()
    if thread:
        thread.join(timeout=10)
    return Block(case, start, time.monotonic())


def differences(blocks: list[Block]) -> dict[str, list[float]]:
    """Each monitored block against the mean of the unmonitored blocks just before and after it."""
    found: dict[str, list[float]] = {case: [] for case in MONITORED}
    for before, block, after in zip(blocks, blocks[1:], blocks[2:], strict=False):
        if block.case in found and before.case == after.case == "none" and block.tps:
            found[block.case].append(block.mean / statistics.mean([before.mean, after.mean]) - 1)
    return found


def main() -> None:
    args = parse_args()
    exit_on_sigterm()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-poll-overhead-"))
    server, peer, load = SandboxMariaDB(base / "data"), None, None
    split = None if args.shared_cpus else cpus.split()
    if split:  # this process, its Postgres and Redis, and the children it starts later: the monitors' CPUs
        cpus.pin_tree(os.getpid(), split[1])
        cpus.pin_embedded(split[1])
    try:
        server.start()
        server.create_monitor_user(OURS, PASSWORD)
        server.create_monitor_user(PEER, PASSWORD)
        prepare_load(server)
        peer = Exporter(server, base)
        ours = Ours(server, 1)
        ours.poll(), peer.scrape()  # connect, baselines
        if split:  # the database host: the server and its load on one CPU
            cpus.pin_tree(server.process.pid, split[0])
        load = subprocess.Popen(sysbench(server, "--threads=2", f"--time={int(args.minutes * 60) + 30}",
                                         "--report-interval=1", "run"),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=(lambda: os.sched_setaffinity(0, split[0])) if split else None)
        run(args, Reports(load), ours, peer, split)
    finally:
        POOL.close_all()
        stop_child(load)
        stop_child(peer.process if peer else None)
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def run(args, reports: Reports, ours: Ours, peer: Exporter, split: tuple | None) -> None:
    where = (f"MariaDB and sysbench on CPU {cpus.describe(split[0])}, the monitors on CPU {cpus.describe(split[1])}"
             if split else "everything on all CPUs (--shared-cpus)")
    print(f"sysbench oltp_write_only, 2 threads, one run of {args.minutes:g} min in blocks of {args.block:g} s"
          f" ({', '.join(CYCLE)}, ...); {where}; load average at start {os.getloadavg()[0]:.2f}", flush=True)
    time.sleep(20)  # the buffer pool and the first purge: not measured
    blocks, deadline = [], time.monotonic() + args.minutes * 60 - 20
    while time.monotonic() + args.block <= deadline:
        blocks.append(run_block(CYCLE[len(blocks) % len(CYCLE)], args.block, ours, peer))
    time.sleep(1.5)  # the last block's last report
    for block in blocks:
        block.tps = reports.within(block.start + SETTLE, block.end)
    summary(blocks, differences(blocks))


def summary(blocks: list[Block], found: dict[str, list[float]]) -> None:
    for case in ("none", *MONITORED):
        means = [b.mean for b in blocks if b.case == case and b.tps]
        print(f"{case:<14} {len(means):>3} blocks, TPS per block: median {statistics.median(means):8.1f},"
              f" min {min(means):8.1f}, max {max(means):8.1f}")
    for case, values in found.items():
        print(f"{case:<14} per block (to pool runs): {' '.join(f'{v:+.4f}' for v in values)}")
        low, high = mean_interval(values)
        print(f"{case:<14} vs the unmonitored blocks beside it: mean {statistics.mean(values):+.2%},"
              f" 95 % interval {low:+.2%} to {high:+.2%}; median {statistics.median(values):+.2%},"
              f" min {min(values):+.1%}, max {max(values):+.1%} ({len(values)} blocks)")
    low, high = mean_interval(found["ours 1 s"])
    verdict = ("met" if low > -0.01 else "missed" if high < -0.01 else "not decided: the interval holds -1 %")
    if len(found["ours 1 s"]) < MIN_BLOCKS:
        verdict = f"not decided: {len(found['ours 1 s'])} blocks, a verdict needs {MIN_BLOCKS}"
    print(f"goal (ours costs under 1 % of TPS): {verdict} (mean {statistics.mean(found['ours 1 s']):+.2%},"
          f" 95 % interval {low:+.2%} to {high:+.2%}); load average at the end {os.getloadavg()[0]:.2f}")


def mean_interval(values: list[float], draws: int = 10_000) -> tuple[float, float]:
    """95 % bootstrap interval of the mean per-block difference (blocks resampled with replacement)."""
    rng = np.random.default_rng(0)
    means = rng.choice(np.asarray(values), size=(draws, len(values)), replace=True).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


if __name__ == "__main__":
    main()
