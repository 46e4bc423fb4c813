"""Fleet-scale polling: N targets at one interval, one Celery worker process.

Starts its own MariaDB sandbox, private Postgres and Redis (monitor.settings_test),
registers N servers that point at the sandbox (--sandboxes spreads them over several:
MariaDB sums its global status over every connection, so one server holding 2,500 monitor
connections pays 2,500 times that per poll, a cost no real fleet's servers pay), runs the real dispatcher
(dispatch_due_polls, once a second as beat would) and one real Celery worker
(threads pool; the polls of a batch run in the worker's thread pool), then reads
the per-poll records: sustained polls/s, lag (poll start minus due time) p50/p99,
poll duration, failures, and the worker's CPU%.

Goal: 1,000 targets at 10 s with p99 lag under 1 s on this 2-core machine, over the whole
window from the first dispatch (--warmup 0); 2,500 once a poll costs the worker at most 1.5 ms of CPU.

    .venv/bin/python bench/poll_scale.py --targets 1000 --interval 10 --warmup 0 --duration 120
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis
if not os.getenv("CREDENTIAL_KEY"):  # the worker process must decrypt what this one encrypts
    from cryptography.fernet import Fernet

    os.environ["CREDENTIAL_KEY"] = Fernet.generate_key().decode()

import django  # noqa: E402

django.setup()

import psutil  # noqa: E402
from django.core.management import call_command  # noqa: E402

from collectors import state  # noqa: E402
from collectors.models import PollRecord, ServerHealth  # noqa: E402
from collectors.schedule import DUE_KEY  # noqa: E402
from collectors.tasks import dispatch_due_polls  # noqa: E402
from servers.models import Server  # noqa: E402
from store.stats import percentile  # noqa: E402
from testing.mariadb import SandboxMariaDB  # noqa: E402
from testing.workers import start_worker, stop_worker, wait_alive  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=1000)
    parser.add_argument("--interval", type=int, default=10)
    parser.add_argument("--duration", type=int, default=60, help="measured seconds, after the warm-up")
    parser.add_argument("--warmup", type=int, default=150,
                        help="at most this many seconds until every target was polled 3 times"
                             " (connect, first store writes); 0: measure from the first dispatch on"
                             " (the whole window, warm-up included)")
    parser.add_argument("--concurrency", type=int, default=16, help="Celery worker threads (batches at once)")
    parser.add_argument("--threads", type=int, default=64, help="polls at once inside the worker")
    parser.add_argument("--batch", type=int, default=25, help="servers per poll task (COLLECTORS_BATCH_SIZE)")
    parser.add_argument("--sandboxes", type=int, default=1, help="MariaDB sandboxes the targets are spread over")
    return parser.parse_args()


def register_targets(count: int, ports: list[int], interval: int) -> None:
    servers = []
    for i in range(count):
        server = Server(name=f"target-{i:05d}", host="127.0.0.1", port=ports[i % len(ports)], user="steady",
                        poll_interval=interval)
        server.password = "s3cret!"
        servers.append(server)
    Server.objects.bulk_create(servers, batch_size=500)


def start_scale_worker(args: argparse.Namespace, logfile: Path) -> subprocess.Popen:
    env = dict(os.environ, COLLECTORS_BATCH_SIZE=str(args.batch))
    worker = start_worker("scale", env, logfile, args.concurrency, args.threads)
    wait_alive(["scale"], [worker])  # consuming before the first dispatch: no poll waits for it to start
    return worker


FIRST_DUE: dict[int, float] = {}  # server id -> its first due time, as the first dispatch set it


def dispatch_for(seconds: float, until=None) -> float:
    """The beat: one dispatch a second, for seconds or until until() is true; returns the time spent."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        tick = time.monotonic()
        dispatch_due_polls()
        if not FIRST_DUE:
            FIRST_DUE.update({int(m): score for m, score in state.client().zrange(DUE_KEY, 0, -1, withscores=True)})
        if until and until():
            break
        time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
    return time.monotonic() - start


def warmed_up(targets: int) -> bool:
    return ServerHealth.objects.filter(polls__gte=3).count() >= targets


def report(args, start: datetime, end: datetime, worker_cpu: float, mariadb_cpu: float, seconds: float,
           worker_system: float = 0.0, switches: int = 0) -> None:
    rows = list(PollRecord.objects.filter(started_at__gte=start, started_at__lt=end)
                .values_list("lag_ms", "duration_ms", "ok", "started_at"))
    lags = [r[0] for r in rows if r[0] is not None]
    durations = [r[1] for r in rows]
    failed = sum(1 for r in rows if not r[2])
    expected = due_in(start.timestamp(), end.timestamp(), args.interval) / seconds
    print(f"targets={args.targets} interval={args.interval}s measured={seconds:.0f}s "
          f"worker: 1 process, {args.concurrency} task threads, {args.threads} poll threads, batch {args.batch}")
    print(f"polls/s sustained: {len(rows) / seconds:.1f} (due: {expected:.1f}); failed polls: {failed}")
    print(f"lag ms: p50 {percentile(lags, 50):.0f}  p99 {percentile(lags, 99):.0f}  max {max(lags or [0]):.0f}")
    print(f"lag by 30 s slice (a backlog left by the warm-up drains in the first ones): {lag_slices(rows, start)}")
    print(f"poll duration ms: p50 {percentile(durations, 50):.1f}  p99 {percentile(durations, 99):.1f}")
    cpu_per_poll = worker_cpu / 100 * seconds / max(1, len(rows)) * 1000
    print(f"worker CPU: {worker_cpu:.0f}% of one core, {cpu_per_poll:.1f} ms CPU per poll"
          f" (one core would sustain ~{1000 / cpu_per_poll:.0f} polls/s), of which in the kernel {worker_system:.0f}%"
          f" of one core; sandbox MariaDB CPU ({args.sandboxes} of them): {mariadb_cpu:.0f}%")
    print(f"worker context switches: {switches / max(1, len(rows)):.0f} a poll (threads waking for I/O or the GIL)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (shared with other work)")
    goal = "met" if percentile(lags, 99) < 1000 and len(rows) / seconds >= 0.95 * expected else "MISSED"
    print(f"goal (p99 lag < 1 s at {expected:.0f} polls/s): {goal}")


def lag_slices(rows: list[tuple], start: datetime, seconds: int = 30) -> str:
    slices: dict[int, list[float]] = {}
    for lag, _, _, started_at in rows:
        if lag is not None:
            slices.setdefault(int((started_at - start).total_seconds() // seconds), []).append(lag)
    return "; ".join(f"{k * seconds}-{(k + 1) * seconds}s p50 {percentile(v, 50):.0f} p99 {percentile(v, 99):.0f} ms"
                     for k, v in sorted(slices.items()))


def main() -> None:
    args = parse_args()
    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-poll-scale-"))
    # One monitoring connection per target on its sandbox (the default allows 2,000).
    connections = max(2000, math.ceil(args.targets / args.sandboxes) + 200)
    sandboxes = [SandboxMariaDB(base / f"data{i}", extra_args=[f"--max-connections={connections}"])
                 for i in range(args.sandboxes)]
    worker = None
    try:
        for mariadb in sandboxes:
            mariadb.start()
            mariadb.create_monitor_user()
        register_targets(args.targets, [m.port for m in sandboxes], args.interval)
        worker = start_scale_worker(args, base / "worker.log")
        print(f"warming up: until each of {args.targets} targets was polled 3 times (at most {args.warmup}s)",
              flush=True)
        spent = dispatch_for(args.warmup, until=lambda: warmed_up(args.targets))
        print(f"warm-up {'done' if warmed_up(args.targets) else 'NOT done'} after {spent:.0f}s", flush=True)
        worker_ps, db_ps = psutil.Process(worker.pid), [psutil.Process(m.process.pid) for m in sandboxes]
        cpu0, db0, t0 = cpu_seconds(worker_ps), sum(map(cpu_seconds, db_ps)), time.monotonic()
        system0, switches0 = worker_ps.cpu_times().system, context_switches(worker.pid)
        start = datetime.now(UTC)
        dispatch_for(args.duration)
        end = datetime.now(UTC)
        seconds = time.monotonic() - t0
        worker_cpu = (cpu_seconds(worker_ps) - cpu0) / seconds * 100
        mariadb_cpu = (sum(map(cpu_seconds, db_ps)) - db0) / seconds * 100
        worker_system = (worker_ps.cpu_times().system - system0) / seconds * 100
        switches = context_switches(worker.pid) - switches0
        time.sleep(3)  # let the last batches record themselves
        report(args, start, end, worker_cpu, mariadb_cpu, seconds, worker_system, switches)
    finally:
        if worker:
            stop_worker(worker, timeout=30)
        for mariadb in sandboxes:
            mariadb.stop()
        shutil.rmtree(base, ignore_errors=True)


def due_in(start: float, end: float, interval: int) -> int:
    """Polls due in [start, end): from each server's first due time (the first polls are spread, at
    most collectors.schedule.FIRST_POLLS_PER_SECOND a second), one every interval."""
    count = 0
    for first in FIRST_DUE.values():
        k0 = max(0, math.ceil((start - first) / interval))
        count += max(0, math.ceil((end - first) / interval) - k0)
    return count


def context_switches(pid: int) -> int:
    """Voluntary and involuntary, summed over the process's threads (its /proc status counts the main thread only)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
        except OSError:  # a thread that ended since the listing
            continue
        total += sum(int(line.split()[1]) for line in lines if "ctxt_switches" in line)
    return total


def cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


if __name__ == "__main__":
    main()
