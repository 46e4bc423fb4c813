"""collect and load: what a collection file costs per poll, and how fast a long one loads.

    .venv/bin/python bench/collect_load.py [--polls 30] [--hours 6]

1. Starts a private MariaDB (performance_schema ON, as the test suite's) and runs `collect`
   in this process for --polls polls at a 1 s interval: bytes written per poll, and this
   process's CPU per poll (the poll, the JSON, gzip, the fsync).
2. Makes a file of --hours at 10 s from the last real poll (counters growing, gauges as read),
   and loads it into a private embedded PostgreSQL (the test settings): seconds, polls a
   second, samples, and the peak of Python memory (tracemalloc) and the process RSS.
"""

import argparse
import copy
import os
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")
os.environ.setdefault("STORE_RAW_RETENTION_DAYS", "60")

STEP = 10


def collect_real(polls: int, work: Path) -> Path:
    from collectors.pool import Target
    from collectors.standalone import collect
    from collectors.tls import TLS
    from monitor.runtime.sandbox import SandboxMariaDB
    from servers.tls_modes import PREFERRED

    server = SandboxMariaDB(work / "data")
    server.start()
    try:
        server.create_monitor_user()
        path = work / "real.ssc"
        target = Target(0, "bench", "127.0.0.1", server.port, "", "steady", "s3cret!", TLS(PREFERRED))
        cpu0, wall0 = time.process_time(), time.perf_counter()
        done = collect(target, path, 1, polls - 1, out=lambda line: None)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        server.stop()
    size = path.stat().st_size
    print(f"collect: {done} polls in {wall:.1f} s, file {size / 1024:.0f} kB = {size / done / 1024:.1f} kB a poll, "
          f"collector CPU {cpu / done * 1000:.1f} ms a poll")
    return path


def long_file(real: Path, hours: float, work: Path) -> Path:
    """--hours of polls at 10 s made from the last real poll: every counter grows by a fixed step."""
    from collectors import collect_file

    records = [r for r, _end in collect_file.records(real.read_bytes())]
    header, last = records[0], [r for r in records if r["type"] == "poll"][-1]
    path = work / "long.ssc"
    writer = collect_file.Writer(path)
    writer.write(header)
    t0 = last["at"]
    for i in range(int(hours * 3600 / STEP)):
        poll = copy.deepcopy(last)
        poll["at"] = t0 + STEP * i
        for reading in poll["readings"]:
            reading["read_at"] += STEP * i
            counters = set(reading["counters"])
            for name in counters:
                reading["values"][name] += 7 * i
        writer.write(poll, sync=False)  # a made-up file: no fsync per record
    writer.write({"type": "end", "at": t0 + hours * 3600})
    writer.close()
    print(f"long file: {hours} h at {STEP} s = {int(hours * 3600 / STEP)} polls, {path.stat().st_size / 2**20:.1f} MB")
    return path


def load_long(path: Path) -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from collectors.replay import load

    data = path.read_bytes()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    began, cpu0 = time.perf_counter(), time.process_time()
    report = load(data, "bench-long", str(path))
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"load: {report.polls} polls, {report.samples} samples in {seconds:.1f} s = "
          f"{report.polls / seconds:.0f} polls/s (this process's CPU {cpu:.1f} s = "
          f"{cpu / report.polls * 1000:.1f} ms a poll; "
          f"PostgreSQL's apart); Python peak {peak:.0f} MB (file {len(data) / 2**20:.1f} MB); "
          f"max RSS {rss0:.0f} -> {rss:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--polls", type=int, default=30)
    parser.add_argument("--hours", type=float, default=6)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-collect-"))
    try:
        real = collect_real(args.polls, work)
        load_long(long_file(real, args.hours, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"machine: nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
