"""Record a scalability sweep on a private MariaDB (the test suite's sandbox) and fit the USL to it.

    .venv/bin/python bench/usl_sweep.py sysbench [--levels 1,2,3,4,6,8,12,16] [--seconds 5] [--repeat 3]
    .venv/bin/python bench/usl_sweep.py rowlock [--levels 1,2,4,8] [--seconds 3] [--rows 4 --repeat 3]
    .venv/bin/python bench/usl_sweep.py hotspot [--levels 1,2,4,8] [--seconds 3] [--think-ms 2] [--durable]

`sysbench` runs `sysbench oltp_read_only` (1 table of 10,000 rows) once per level and prints
its own TPS per level: the recorded sweep in testing/usl_recorded.py came from here. `hotspot`
runs the stress driver in rw mode over 1 row, then over 10,000 rows, and prints each sweep's
TPS per level and fitted sigma. It prints the machine and its load average with the figures.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")

from dashboards.analysis.usl import fit_usl, leave_one_out  # noqa: E402
from testing.mariadb import running_sandbox  # noqa: E402
from workload.driver import StressDriver, StressOptions  # noqa: E402
from workload.target import Target  # noqa: E402

USER, PASSWORD = "bench", "b3nch!"
TPS_LINE = re.compile(r"transactions:\s+\d+\s+\(([\d.]+) per sec\.\)")


def tps_of(output: str) -> float:
    """sysbench's own TPS from its summary."""
    match = TPS_LINE.search(output)
    if not match:
        raise SystemExit(f"no 'transactions:' line in sysbench's output:\n{output[-2000:]}")
    return float(match[1])


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    return f"nproc {os.cpu_count()}, {cpu}, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}"


def sysbench_sweep(port: int, levels: list[int], seconds: int, repeat: int) -> list[float]:
    """Per level the median of `repeat` passes over the levels (a machine shared with others wobbles
    for seconds at a time: passes spread each level's runs over the whole recording)."""
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={port}", f"--mysql-user={USER}",
               f"--mysql-password={PASSWORD}", "--mysql-db=sb", "--tables=1", "--table-size=10000"]
    subprocess.run(["sysbench", "oltp_read_only", *options, "prepare"], check=True, capture_output=True)
    subprocess.run(["sysbench", "oltp_read_only", *options, "--threads=2", "--time=5", "run"], check=True,
                   capture_output=True)  # warm the buffer pool and the server's caches first
    runs: dict[int, list[float]] = {level: [] for level in levels}
    for _ in range(repeat):
        for level in levels:
            done = subprocess.run(["sysbench", "oltp_read_only", *options, f"--threads={level}",
                                   f"--time={seconds}", "run"], check=True, capture_output=True, text=True)
            runs[level].append(tps_of(done.stdout))
            print(f"  {level:3d} threads: {runs[level][-1]:9.2f} TPS", flush=True)
    return [statistics.median(runs[level]) for level in levels]


ROW_LOCK = str(Path(__file__).resolve().parent.parent / "testing" / "sysbench" / "row_lock.lua")


def row_lock_sweep(port: int, levels: list[int], seconds: int, rows: int, repeat: int = 1) -> list[float]:
    """testing/sysbench/row_lock.lua over `rows` rows, per level the median of `repeat` passes."""
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={port}", f"--mysql-user={USER}",
               f"--mysql-password={PASSWORD}", "--mysql-db=sb", f"--rows={rows}"]
    subprocess.run(["sysbench", ROW_LOCK, *options, "prepare"], check=True, capture_output=True)
    runs: dict[int, list[float]] = {level: [] for level in levels}
    for _ in range(repeat):
        for level in levels:
            done = subprocess.run(["sysbench", ROW_LOCK, *options, f"--threads={level}", f"--time={seconds}",
                                   "run"], check=True, capture_output=True, text=True)
            runs[level].append(tps_of(done.stdout))
            print(f"  {level:3d} threads: {runs[level][-1]:9.2f} TPS", flush=True)
    return [statistics.median(runs[level]) for level in levels]


def stress_sweep(target: Target, levels: list[int], seconds: float, rows: int, think: float) -> list[float]:
    out = []
    for level in levels:
        options = StressOptions(mode="rw", concurrency=level, duration=seconds + 1, warmup=1, rows=rows,
                                schema=f"hot{rows}", interval=seconds, think_ms=think)
        driver = StressDriver(target, options, report=lambda line: None)
        driver.prepare()
        measured = driver.run().measured
        assert measured is not None and measured.tps is not None, "the step ended inside its warm-up"
        out.append(measured.tps)
        print(f"  {level:3d} threads: {out[-1]:9.2f} TPS", flush=True)
    return out


def report(levels: list[int], tps: list[float]) -> None:
    fit = fit_usl(levels, tps)
    if fit is None:
        print("  no fit: under 3 levels")
        return
    print(f"  fit: lambda {fit.lam:.1f} sigma {fit.sigma:.4f} kappa {fit.kappa:.6f} R^2 {fit.r2:.3f} "
          f"peak {fit.peak and round(fit.peak, 1)}")
    for left in levels[1:-1]:
        predicted = leave_one_out(levels, tps, left)
        measured = tps[levels.index(left)]
        if predicted is None:
            continue
        print(f"  without {left}: predicted {predicted:.1f}, measured {measured:.1f} "
              f"({(predicted - measured) / measured * 100:+.1f} %)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["sysbench", "hotspot", "rowlock"])
    parser.add_argument("--levels", default="")
    parser.add_argument("--seconds", type=float, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the levels (median kept)")
    parser.add_argument("--rows", type=int, default=0, help="rowlock: one sweep over this many rows")
    parser.add_argument("--durable", action="store_true",
                        help="hotspot: innodb_flush_log_at_trx_commit=1, a log flush per commit under the row lock")
    parser.add_argument("--think-ms", type=float, default=0, help="hotspot: each session's pause between transactions")
    args = parser.parse_args()
    levels = [int(v) for v in (args.levels or ("1,2,3,4,6,8,12,16" if args.kind == "sysbench" else "1,2,4,8"))
              .split(",")]
    print(machine())
    with running_sandbox("usl-sweep-") as server:
        server.execute("CREATE DATABASE sb", f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'",
                       f"GRANT ALL ON *.* TO '{USER}'@'%'")
        if args.kind == "sysbench":
            tps = sysbench_sweep(server.port, levels, int(args.seconds or 5), args.repeat)
            print("  median per level: " + ", ".join(f"{lv}: {t:.2f}" for lv, t in zip(levels, tps, strict=True)))
            report(levels, tps)
        elif args.kind == "rowlock":
            for rows in ([args.rows] if args.rows else [1, 10_000]):
                print(f"sysbench row_lock.lua over {rows} rows")
                tps = row_lock_sweep(server.port, levels, int(args.seconds or 3), rows, args.repeat)
                print("  median per level: " + ", ".join(f"{lv}: {t:.2f}" for lv, t in zip(levels, tps, strict=True)))
                report(levels, tps)
        else:
            if args.durable:
                server.execute("SET GLOBAL innodb_flush_log_at_trx_commit=1")
            target = Target(name="bench", user=USER, password=PASSWORD, host="127.0.0.1", port=server.port)
            for rows in (1, 10_000):
                print(f"stress rw over {rows} rows")
                report(levels, stress_sweep(target, levels, args.seconds or 3, rows, args.think_ms))
    print(machine())


if __name__ == "__main__":
    main()
