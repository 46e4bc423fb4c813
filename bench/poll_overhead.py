"""What 1 s polling costs the monitored server's throughput: none vs ours vs the exporter.

Starts a private MariaDB (performance_schema ON) and runs rounds of a fixed saturating
write load (sysbench oltp_write_only, 2 threads, no rate limit) for --seconds each, in
three cases: not monitored, our poll every second (the worker's batch path, as in
bench/peer_cost.py), Debian's prometheus-mysqld-exporter scraped every second (same
collectors as there). The order of the cases changes every round so a busy shared
machine slows them alike; each case's TPS is compared with the unmonitored run of the
same round, and the median and spread of those per-round ratios are printed.

The monitors run on the same 2 cores as the server here, so their client CPU counts
too (a real monitor usually runs elsewhere): an upper bound for the server's cost.

    make bench-deps
    .venv/bin/python bench/poll_overhead.py [--seconds 30] [--rounds 6]

The verdict uses a 95 % bootstrap interval of the mean per-round ratio: "met" only when
the whole interval lies above -1 %.
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
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.peer_cost import OURS, PASSWORD, PEER, SYSBENCH_DB, Exporter, Ours, exit_on_sigterm, stop_child  # noqa: E402
from collectors.pool import POOL  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402

CASES = ("none", "ours 1 s", "exporter 1 s")
TPS_LINE = re.compile(r"transactions:\s+\d+\s+\(([\d.]+) per sec")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30, help="seconds of load per case per round")
    parser.add_argument("--rounds", type=int, default=6)
    return parser.parse_args()


def sysbench(server: SandboxMariaDB, *extra: str) -> list[str]:
    return ["sysbench", "oltp_write_only", "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={server.port}", "--mysql-user=root", f"--mysql-db={SYSBENCH_DB}",
            "--tables=2", "--table-size=20000", *extra]


def load_tps(server: SandboxMariaDB, seconds: int) -> float:
    done = subprocess.run(sysbench(server, "--threads=2", f"--time={seconds}", "run"),
                          capture_output=True, text=True, timeout=seconds + 60)
    match = TPS_LINE.search(done.stdout)
    if not match:
        raise RuntimeError(f"sysbench printed no TPS: {done.stdout[-500:]} {done.stderr[-500:]}")
    return float(match.group(1))


def every_second(call, stop: threading.Event) -> threading.Thread:
    def loop():
        while not stop.wait(1.0):
            call()
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def run_case(case: str, server: SandboxMariaDB, seconds: int, ours: Ours, peer: Exporter) -> float:
    stop = threading.Event()
    monitor = {"none": None, "ours 1 s": ours.poll, "exporter 1 s": peer.scrape}[case]
    thread = every_second(monitor, stop) if monitor else None
    try:
        return load_tps(server, seconds)
    finally:
        stop.set()
        if thread:
            thread.join(timeout=10)


def main() -> None:
    args = parse_args()
    exit_on_sigterm()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-poll-overhead-"))
    server, peer = SandboxMariaDB(base / "data"), None
    try:
        server.start()
        server.create_monitor_user(OURS, PASSWORD)
        server.create_monitor_user(PEER, PASSWORD)
        server.execute(f"CREATE DATABASE IF NOT EXISTS {SYSBENCH_DB}")
        subprocess.run(sysbench(server, "prepare"), check=True, capture_output=True)
        peer = Exporter(server, base)
        run(args, server, Ours(server, 1), peer)
    finally:
        POOL.close_all()
        stop_child(peer.process if peer else None)
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def run(args, server: SandboxMariaDB, ours: Ours, peer: Exporter) -> None:
    print(f"sysbench oltp_write_only, 2 threads, {args.seconds} s per case, {args.rounds} rounds;"
          f" load average at start {os.getloadavg()[0]:.2f}", flush=True)
    load_tps(server, 5)  # warm the buffer pool
    ratios: dict[str, list[float]] = {case: [] for case in CASES[1:]}
    tps: dict[str, list[float]] = {case: [] for case in CASES}
    for r in range(args.rounds):
        order = CASES[r % 3:] + CASES[:r % 3]
        got = {case: run_case(case, server, args.seconds, ours, peer) for case in order}
        for case in CASES:
            tps[case].append(got[case])
        for case in ratios:
            ratios[case].append(got[case] / got["none"] - 1)
        print(f"  round {r + 1} ({', '.join(order)}): " + ", ".join(f"{c} {got[c]:.0f} TPS" for c in CASES)
              + f"  (load average {os.getloadavg()[0]:.2f})", flush=True)
    for case in CASES:
        print(f"{case:<14} median TPS {statistics.median(tps[case]):8.1f}")
    for case, values in ratios.items():
        low, high = mean_interval(values)
        print(f"{case:<14} vs none in the same round: median {statistics.median(values):+.1%},"
              f" min {min(values):+.1%}, max {max(values):+.1%}; mean {statistics.mean(values):+.2%},"
              f" 95 % interval {low:+.2%} to {high:+.2%}")
    low, high = mean_interval(ratios["ours 1 s"])
    verdict = ("met" if low > -0.01 else "missed" if high < -0.01 else "not decided: the interval holds -1 %")
    print(f"goal (ours costs under 1 % of TPS): {verdict} (mean {statistics.mean(ratios['ours 1 s']):+.2%},"
          f" 95 % interval {low:+.2%} to {high:+.2%} over {len(ratios['ours 1 s'])} rounds)")


def mean_interval(values: list[float], draws: int = 10_000) -> tuple[float, float]:
    """95 % bootstrap interval of the mean per-round ratio (rounds resampled with replacement)."""
    rng = np.random.default_rng(0)
    means = rng.choice(np.asarray(values), size=(draws, len(values)), replace=True).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


if __name__ == "__main__":
    main()
