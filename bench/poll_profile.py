"""Where the worker's CPU goes per poll: cProfile around the real batch path, no threads.

Starts its own MariaDB sandbox, private Postgres and Redis (monitor.settings_test),
registers N servers pointing at the sandbox, polls them once (connects), then
polls them R more times in batches as collectors.tasks.poll_batch does (load the
batch's servers, poll, record; a 1 s interval so the cheap sources are due each round),
single-threaded so the profile sees everything.
Prints CPU ms per poll and the top functions.

    .venv/bin/python bench/poll_profile.py --targets 100 --rounds 5
"""

import argparse
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from collectors.batch import poll_servers  # noqa: E402
from monitor.models import Server  # noqa: E402
from testing.mariadb import SandboxMariaDB  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="measured polls per target")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--callers", help="also print who calls the functions matching this pattern")
    parser.add_argument("--no-cprofile", action="store_true",
                        help="only the CPU per poll (e.g. under py-spy, which cProfile would distort)")
    return parser.parse_args()


def register(count: int, port: int) -> list[int]:
    servers = []
    for i in range(count):
        server = Server(name=f"profile-{i:04d}", host="127.0.0.1", port=port, user="steady", poll_interval=1)
        server.password = "s3cret!"
        servers.append(server)
    return [s.id for s in Server.objects.bulk_create(servers)]


def poll_round(ids: list[int], batch: int) -> None:
    """Every target once, batch by batch, as the worker's tasks would (minus the thread pool)."""
    now = time.time()
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        servers = list(Server.objects.filter(pk__in=chunk, enabled=True))
        poll_servers(servers, {sid: datetime.fromtimestamp(now, UTC) for sid in chunk})


def measure(ids: list[int], args: argparse.Namespace, profiler: cProfile.Profile | None) -> float:
    """CPU seconds of this process for args.rounds polls of every target."""
    cpu = 0.0
    for _ in range(args.rounds):
        time.sleep(0.6)  # attempts must age for the cheap sources to be due again
        cpu0 = time.process_time()
        if profiler:
            profiler.enable()
        poll_round(ids, args.batch)
        if profiler:
            profiler.disable()
        cpu += time.process_time() - cpu0
    return cpu


def main() -> None:
    args = parse_args()
    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-poll-profile-"))
    mariadb = SandboxMariaDB(base / "data")
    try:
        mariadb.start()
        mariadb.create_monitor_user()
        ids = register(args.targets, mariadb.port)
        cpu0 = time.process_time()
        poll_round(ids, args.batch)  # connect and take the first snapshots
        first = (time.process_time() - cpu0) * 1000 / len(ids)
        print(f"first polls (connect, every source, new metrics in the store): {first:.2f} ms CPU per poll")
        polls = args.targets * args.rounds
        cpu = measure(ids, args, None)
        print(f"{datetime.now(UTC):%H:%M:%S} load {os.getloadavg()[0]:.1f}: {polls} polls, "
              f"{cpu * 1000 / polls:.2f} ms CPU per poll")
        if args.no_cprofile:
            return
        profiler = cProfile.Profile(time.process_time)  # CPU time: waiting on a socket is not our cost
        cpu = measure(ids, args, profiler)
        print(f"profiled: {cpu * 1000 / polls:.2f} ms CPU per poll (profiler overhead included)")
        stats = pstats.Stats(profiler)
        stats.sort_stats(args.sort).print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)
        if args.callers:
            stats.print_callers(args.callers)
    finally:
        mariadb.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
