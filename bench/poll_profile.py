"""Where the worker's CPU goes per poll: cProfile around the real batch path, no threads.

Starts its own MariaDB sandbox, private Postgres and Redis (monitor.settings_test),
registers N servers pointing at the sandbox, polls them once (connects), then
polls them R more times in batches as collectors.tasks.poll_batch does (load the
batch's servers, poll, record; rounds half an --interval apart so the every-poll sources are due each round),
single-threaded so the profile sees everything.
Prints CPU ms per poll and the top functions.

With --node-exporter it measures the HTTP source instead: a private node_exporter
(Debian's prometheus-node-exporter, the collectors the source reads) scraped by N
servers through the same batch path with only the node_exporter source, plus the
source alone (fetch, parse of the kept families, delta engine) split into its parts.

    .venv/bin/python bench/poll_profile.py --targets 100 --rounds 5
    .venv/bin/python bench/poll_profile.py --node-exporter --targets 20 --rounds 20
"""

import argparse
import cProfile
import gc
import importlib
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

from collectors import delta, fleet_cache  # noqa: E402
from collectors.batch import poll_servers  # noqa: E402
from collectors.http_poll import fetch  # noqa: E402
from collectors.pool import Target  # noqa: E402
from collectors.sources import node_exporter  # noqa: E402
from collectors.tasks import tune_collection  # noqa: E402
from monitor.runtime.node_exporter import running  # noqa: E402
from servers.models import Server  # noqa: E402
from testing.mariadb import SandboxMariaDB  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="measured polls per target")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--interval", type=int, default=1,
                        help="the servers' poll interval; rounds are half of it apart, so at 10 the 60 s sources"
                             " come in on every sixth poll as in a fleet at 10 s (at 1, on every sixtieth)")
    parser.add_argument("--warmup", type=float, default=130,
                        help="seconds of rounds before measuring: each 60 s source read twice on every server")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--callers", help="also print who calls the functions matching this pattern")
    parser.add_argument("--phases", action="store_true",
                        help="also the CPU per poll of each step of the batch path (a process-CPU timer around each)")
    parser.add_argument("--no-cprofile", action="store_true",
                        help="only the CPU per poll (e.g. under py-spy, which cProfile would distort)")
    parser.add_argument("--node-exporter", action="store_true",
                        help="measure the node_exporter source (worker CPU per scrape) instead of the SQL sources")
    return parser.parse_args()


def register(count: int, port: int, node_exporter_url: str = "", interval: int = 1) -> list[int]:
    servers = []
    for i in range(count):
        server = Server(name=f"profile-{i:04d}", host="127.0.0.1", port=port, user="steady", poll_interval=interval,
                        node_exporter_url=node_exporter_url)
        server.password = "s3cret!"
        servers.append(server)
    return [s.id for s in Server.objects.bulk_create(servers)]


def poll_round(ids: list[int], batch: int, only: list[str] | None = None) -> None:
    """Every target once, batch by batch, as collectors.tasks.poll_batch would (minus the thread pool)."""
    now = time.time()
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        poll_servers(fleet_cache.servers_by_id(chunk), {sid: datetime.fromtimestamp(now, UTC) for sid in chunk}, only)


def pause(interval: int) -> None:
    """Until the every-poll sources are due again (half an interval after their last read)."""
    time.sleep(max(0.6, interval / 2 + 0.05))


def warm_up(ids: list[int], batch: int, interval: int, seconds: float) -> None:
    """Rounds whose CPU is not a steady poll's, each kind printed: the first connects and keeps baselines,
    the second stores the first deltas (the store's layouts grow by the counters), and until seconds
    passed, the 60 s sources' first and second reads on each server's turn (their layouts grow too)."""
    start = time.monotonic()
    for label in ("first polls (connect, every source, baselines)", "second polls (first deltas, layouts grow)"):
        pause(interval)
        cpu0 = time.process_time()
        poll_round(ids, batch)
        print(f"{label}: {(time.process_time() - cpu0) * 1000 / len(ids):.2f} ms CPU per poll")
    cpu, rounds = 0.0, 0
    while time.monotonic() - start < seconds:
        pause(interval)
        cpu0 = time.process_time()
        poll_round(ids, batch)
        cpu, rounds = cpu + time.process_time() - cpu0, rounds + 1
    if rounds:
        print(f"until {seconds:.0f} s (the 60 s sources' first reads on their turns): "
              f"{cpu * 1000 / (len(ids) * rounds):.2f} ms CPU per poll")


# The steps of a batch, each timed where its caller looks it up: (module, attribute, label).
PHASES = (
    ("collectors.fleet_cache", "servers_by_id", "the batch's servers (PostgreSQL)"),
    ("collectors.batch", "state", "locks (Redis)"),
    ("collectors.snapshots", "SnapshotStore.load_many", "snapshots read (Redis)"),
    ("collectors.poll", "shared_read", "the shared statement (PyMySQL)"),
    ("collectors.poll", "read", "read and parse: "),
    ("collectors.poll", "succeeded", "delta engine and sample: "),
    ("collectors.batch", "stage_snapshots", "snapshots staged (JSON, Redis)"),
    ("collectors.batch", "commit_snapshots", "snapshots committed (Redis)"),
    ("collectors.record", "write_samples", "store write"),
    ("collectors.record", "update_health_and_history", "health and history"),
    ("collectors.record", "record_holders", "holders"),
    ("collectors.record", "record_statements", "statement digests"),
)


class PhaseTimer:
    """Process CPU spent inside each step (single-threaded, so process time is the step's own), and in
    garbage collection."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.gc_seconds, self._gc_start = 0.0, 0.0
        self.gc_by_gen: dict[int, tuple[int, float]] = {}  # generation -> (collections, seconds)

    def install(self) -> None:
        gc.callbacks.append(self.collected)
        for module_name, attribute, label in PHASES:
            owner = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, name, self.timed(getattr(owner, name), label))

    def collected(self, phase: str, info: dict) -> None:
        """Garbage collection, counted apart (it also falls inside the step that triggered it)."""
        if phase == "start":
            self._gc_start = time.process_time()
            return
        seconds = time.process_time() - self._gc_start
        count, before = self.gc_by_gen.get(info["generation"], (0, 0.0))
        self.gc_seconds += seconds
        self.gc_by_gen[info["generation"]] = (count + 1, before + seconds)

    def timed(self, target, label: str):
        timer = self
        if not callable(target):  # a module: time the calls of its functions
            return _Proxy(target, timer, label)

        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return target(*args, **kwargs)
            finally:
                # "...: " labels are per source (the call's Source argument)
                key = label + next(a.name for a in args if hasattr(a, "from_shared")) if label.endswith(": ") else label
                timer.spent[key] = timer.spent.get(key, 0.0) + time.process_time() - t0
        return wrapper

    def report(self, polls: int, total: float) -> None:
        for label, seconds in self.spent.items():
            print(f"  {label:40} {seconds * 1000 / polls:6.3f} ms per poll")
        rest = total - sum(self.spent.values())
        print(f"  {'the rest (poll loop, GC, bench)':40} {rest * 1000 / polls:6.3f} ms per poll")
        print(f"  {'garbage collection, within the above':40} {self.gc_seconds * 1000 / polls:6.3f} ms per poll")
        for generation, (count, seconds) in sorted(self.gc_by_gen.items()):
            print(f"    generation {generation}: {count} collections, {seconds * 1000:.1f} ms in all")


class _Proxy:
    """A module's functions (state.acquire_locks, shared_read.read) timed as one step when called through it."""

    def __init__(self, target, timer: PhaseTimer, label: str) -> None:
        self._target, self._timer, self._label = target, timer, label

    def __getattr__(self, name: str):
        value = getattr(self._target, name)
        return self._timer.timed(value, self._label) if callable(value) else value


def measure(ids: list[int], args: argparse.Namespace, profiler: cProfile.Profile | None,
            only: list[str] | None = None) -> float:
    """CPU seconds of this process for args.rounds polls of every target."""
    cpu = 0.0
    for _ in range(args.rounds):
        pause(args.interval)
        cpu0 = time.process_time()
        if profiler:
            profiler.enable()
        poll_round(ids, args.batch, only)
        if profiler:
            profiler.disable()
        cpu += time.process_time() - cpu0
    return cpu


def scrape_parts(url: str, rounds: int) -> dict[str, float]:
    """CPU ms per scrape of the source alone: HTTP fetch, parse (kept families only), delta engine."""
    target = Target(1, "bench", "", 0, "", "", "", node_exporter_url=url)
    urls = node_exporter.endpoints(target)
    spent = {"fetch": 0.0, "parse": 0.0, "delta": 0.0}
    previous = None
    for _ in range(rounds):
        t0 = time.process_time()
        answer = fetch(target, urls)
        t1 = time.process_time()
        reading = node_exporter.collect(answer)
        t2 = time.process_time()
        _change, previous = delta.compute(previous, reading, time.time(), reading.boot)
        t3 = time.process_time()
        for part, seconds in (("fetch", t1 - t0), ("parse", t2 - t1), ("delta", t3 - t2)):
            spent[part] += seconds * 1000 / rounds
        time.sleep(0.05)
    spent["size"] = len(answer.text)
    return spent


def profile_node_exporter(args: argparse.Namespace, mariadb_port: int) -> None:
    with running() as url:
        parts = scrape_parts(url, max(args.rounds * 10, 100))
        total = parts["fetch"] + parts["parse"] + parts["delta"]
        print(f"{datetime.now(UTC):%H:%M:%S} load {os.getloadavg()[0]:.1f}: node_exporter answer "
              f"{parts['size'] / 1024:.0f} KiB; source alone {total:.2f} ms CPU per scrape (fetch "
              f"{parts['fetch']:.2f}, parse {parts['parse']:.2f}, delta {parts['delta']:.2f})")
        ids = register(args.targets, mariadb_port, url)
        only = ["node_exporter"]
        poll_round(ids, args.batch, only)  # connect and take the first snapshots
        cpu = measure(ids, args, None, only)
        print(f"{datetime.now(UTC):%H:%M:%S} load {os.getloadavg()[0]:.1f}: {args.targets * args.rounds} "
              f"scrapes through the batch path (store write, health rows included): "
              f"{cpu * 1000 / (args.targets * args.rounds):.2f} ms CPU per scrape")


def main() -> None:
    args = parse_args()
    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-poll-profile-"))
    mariadb = SandboxMariaDB(base / "data")
    try:
        mariadb.start()
        mariadb.create_monitor_user()
        if args.node_exporter:
            return profile_node_exporter(args, mariadb.port)
        ids = register(args.targets, mariadb.port, interval=args.interval)
        warm_up(ids, args.batch, args.interval, args.warmup)
        tune_collection()  # as the worker does once it is ready: young collections rarer
        polls = args.targets * args.rounds
        cpu = measure(ids, args, None)
        print(f"{datetime.now(UTC):%H:%M:%S} load {os.getloadavg()[0]:.1f}: {polls} polls at a {args.interval} s "
              f"interval, {cpu * 1000 / polls:.2f} ms CPU per poll (process CPU, the store write included)")
        if args.phases:
            timer = PhaseTimer()
            timer.install()
            cpu = measure(ids, args, None)
            print(f"{datetime.now(UTC):%H:%M:%S} load {os.getloadavg()[0]:.1f}: with the phase timer "
                  f"{cpu * 1000 / polls:.2f} ms CPU per poll, of which:")
            timer.report(polls, cpu)
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
