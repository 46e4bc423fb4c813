"""Scale-out on Celery: two worker processes against 2,000 targets, one killed with SIGKILL mid-run.

Starts its own private Postgres and Redis (monitor.settings_test) and a few sandbox
MariaDBs; registers N servers spread over them (the "fake" part: one MariaDB cannot
serve 2,000 monitoring connections per worker, so each sandbox answers for N/k
registered servers, each polled over its own connection with the real statements),
then two Celery workers with their own hostnames (w1@localhost, w2@localhost, as two
machines would run them), and this process as the beat (the dispatcher every 0.25 s).

After every server's first poll (its baselines) and some commits on each sandbox, both
workers poll for --before seconds; then w1 gets SIGKILL, more commits follow, and the
run ends once every server was polled after them. Printed: (server, due time) pairs
polled more than once or skipped while both lived; how long until the survivor had
polled every server after the kill; which polls the kill lost; and whether each
server's stored Com_commit deltas add up to the commits made on its sandbox (no
sample lost or counted twice).

    .venv/bin/python bench/scale_out.py [--targets 2000] [--interval 30] [--sandboxes 3]
"""

import argparse
import os
import shutil
import signal
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis
if not os.getenv("CREDENTIAL_KEY"):  # the workers must decrypt what this process encrypts
    from cryptography.fernet import Fernet

    os.environ["CREDENTIAL_KEY"] = Fernet.generate_key().decode()

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from collectors.models import PollRecord  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB  # noqa: E402
from servers.models import Server  # noqa: E402
from store import query  # noqa: E402
from store.stats import percentile  # noqa: E402
from testing.scale_out import beat_until, due_time_faults, polled_since, run_beat  # noqa: E402
from testing.workers import start_worker, stop_worker, wait_alive  # noqa: E402

LOAD_DB = "scale_load"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=2000)
    parser.add_argument("--interval", type=int, default=30, help="poll interval, seconds")
    parser.add_argument("--sandboxes", type=int, default=3, help="MariaDBs the targets are spread over")
    parser.add_argument("--before", type=float, default=60, help="seconds both workers poll before the kill")
    parser.add_argument("--concurrency", type=int, default=8, help="task threads per worker")
    parser.add_argument("--threads", type=int, default=48, help="poll threads per worker")
    return parser.parse_args()


def register(sandboxes: list[SandboxMariaDB], count: int, interval: int) -> dict[int, int]:
    """{server id: index of its sandbox}."""
    servers = []
    for i in range(count):
        server = Server(name=f"scale-{i:05d}", host="127.0.0.1", port=sandboxes[i % len(sandboxes)].port,
                        user="steady", poll_interval=interval)
        server.password = "s3cret!"
        servers.append(server)
    created = Server.objects.bulk_create(servers, batch_size=500)
    ports = [s.port for s in sandboxes]
    return {s.id: ports.index(s.port) for s in created}


def commit(sandboxes: list[SandboxMariaDB], count: int) -> None:
    for sandbox in sandboxes:
        conn = sandbox.connect()
        try:
            with conn.cursor() as cur:
                for i in range(count):
                    cur.execute("BEGIN")
                    cur.execute(f"INSERT INTO {LOAD_DB}.t (v) VALUES (%s)", (i,))
                    cur.execute("COMMIT")
        finally:
            conn.close()


def lag_figures(start: datetime, end: datetime) -> str:
    lags = list(PollRecord.objects.filter(started_at__gte=start, started_at__lt=end, lag_ms__isnull=False)
                .values_list("lag_ms", flat=True))
    if not lags:
        return "no polls"
    return f"{len(lags)} polls, lag p50 {percentile(lags, 50):.0f} ms, p99 {percentile(lags, 99):.0f} ms"


def takeover_seconds(ids: set[int], killed: datetime) -> float:
    firsts = {}
    for server_id, started in PollRecord.objects.filter(started_at__gt=killed).values_list("server_id", "started_at"):
        firsts[server_id] = min(started, firsts.get(server_id, started))
    return max((firsts[i] - killed).total_seconds() for i in ids) if len(firsts) >= len(ids) else float("nan")


def main() -> None:
    args = parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below stops the workers
    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="bench-scale-out-"))
    sandboxes = [SandboxMariaDB(base / f"data{i}") for i in range(args.sandboxes)]
    workers = []
    try:
        for sandbox in sandboxes:
            sandbox.start()
            sandbox.create_monitor_user()
            sandbox.execute(f"CREATE DATABASE {LOAD_DB}", f"CREATE TABLE {LOAD_DB}.t (id INT AUTO_INCREMENT"
                            " PRIMARY KEY, v INT) ENGINE=InnoDB")
        placed = register(sandboxes, args.targets, args.interval)
        env = dict(os.environ, COLLECTORS_BATCH_SIZE="10")
        workers = [start_worker(n, env, base / f"{n}.log", args.concurrency, args.threads) for n in ("w1", "w2")]
        wait_alive(["w1", "w2"], workers)
        run(args, sandboxes, placed, workers)
    finally:
        for worker in workers:
            stop_worker(worker)
        for sandbox in sandboxes:
            sandbox.stop()
        shutil.rmtree(base, ignore_errors=True)


def run(args, sandboxes: list[SandboxMariaDB], placed: dict[int, int], workers: list) -> None:
    ids, interval = set(placed), args.interval
    print(f"{args.targets} targets at {interval} s over {args.sandboxes} sandbox MariaDBs; 2 workers"
          f" ({args.concurrency} task threads, {args.threads} poll threads); load average"
          f" {os.getloadavg()[0]:.2f}", flush=True)
    start = datetime.now(UTC)
    beat_until(lambda: polled_since(start) >= ids, timeout=3 * interval)
    print(f"first polls of every target done in {(datetime.now(UTC) - start).total_seconds():.0f} s", flush=True)
    commit(sandboxes, 40)
    both_from = datetime.now(UTC)
    run_beat(args.before)
    commit(sandboxes, 30)
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait()
    killed = datetime.now(UTC)
    beat_until(lambda: polled_since(killed) >= ids, timeout=4 * interval)
    took = takeover_seconds(ids, killed)
    commit(sandboxes, 30)
    after = datetime.now(UTC)
    beat_until(lambda: polled_since(after) >= ids, timeout=3 * interval)
    report(args, ids, placed, (start, both_from, killed, after), took)


def report(args, ids: set[int], placed: dict[int, int], times: tuple, took: float) -> None:
    start, both_from, killed, after = times
    interval = args.interval
    faults = due_time_faults(ids, both_from, killed - timedelta(seconds=interval), interval)
    print(f"both workers live ({(killed - both_from).total_seconds():.0f} s): {lag_figures(both_from, killed)};"
          f" (server, due time) faults: {len(faults)} {faults[:5]}")
    print(f"after the SIGKILL: {lag_figures(killed, datetime.now(UTC))}")
    print(f"survivor had polled every server {took:.1f} s after the kill ({took / interval:.2f} intervals;"
          f" goal <= 2)")
    lost = due_time_faults(ids, killed - timedelta(seconds=interval), datetime.now(UTC), interval)
    print(f"due times skipped around the kill (the dead worker's claimed polls): {len(lost)}")
    end = datetime.now(UTC) + timedelta(seconds=1)
    final = polled_since(after)  # the others' last commits are not polled yet: nothing to compare
    wrong = [s for s in final if query.totals(s, ["Com_commit"], start, end).get("Com_commit") != 100]
    print(f"servers polled after the last commits: {len(final)} of {len(ids)}; of those, stored Com_commit"
          f" deltas differing from the 100 commits made (a sample lost or counted twice): {len(wrong)}")
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
