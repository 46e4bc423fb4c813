"""Dashboard benchmark: server time of the stability view over 7 days of 10 s polls of one server.

    .venv/bin/python bench/dashboards.py [--days 7] [--repeat 7]

Starts a private embedded PostgreSQL and Redis (the test settings), writes the
polls through the store's ingest (TPS, 80 wait events, 20 InnoDB mutexes,
history length, purge counters), runs the store's maintenance, then requests
/servers/<id>/stability/ for the whole range with Django's test client and
prints the median server time, split into store reads and the rest (figure,
JSON, template), and the time of one request right after a compaction (the
current day's hour buckets derived again from its 1-minute rollups, which
the requests in between reuse: store.pending_hours). Goal (issue 18): under
150 ms on a quiet machine. Results go to docs/benchmarks.md.
"""

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

STEP = 10
EVENTS = [f"wait/synch/mutex/innodb/event_{i}" for i in range(80)]
MUTEXES = [f"trx0sys.cc:{100 + i}" for i in range(20)]
GOAL_MS = 150


def poll_samples(server_id: int, i: int, ts: datetime, rng: np.random.Generator) -> list:
    from store.sample import Sample

    if i == 0:
        return [Sample(server_id, "variables", ts, None, {"var:innodb_max_purge_lag": 0.0})]
    tps = int(rng.normal(5000, 300)) if i % 500 > 20 else int(rng.normal(800, 100))  # a stall now and then
    status = {"tps": tps, "qps": tps * 9, "Com_commit": tps, "Com_rollback": 0}
    counts = rng.poisson(50, len(EVENTS))
    waits = {f"wait.count:{e}": int(c) for e, c in zip(EVENTS, counts, strict=True)}
    for k, (event, count) in enumerate(zip(EVENTS, counts, strict=True)):
        waits[f"wait.time_ps:{event}"] = int(count) * (k + 1) * 10**7
    mutex = {f"mutex.waits:{m}": int(v) for m, v in zip(MUTEXES, rng.poisson(30, len(MUTEXES)), strict=True)}
    purge = {"innodb_metrics:purge_del_mark_records": int(rng.poisson(400))}
    return [
        Sample(server_id, "global_status", ts, float(STEP), status | {"Threads_running": 8}, frozenset(status)),
        Sample(server_id, "pfs_waits", ts, float(STEP), waits, frozenset(waits)),
        Sample(server_id, "innodb_mutex", ts, float(STEP), mutex, frozenset(mutex)),
        Sample(server_id, "history_length", ts, None, {"history_list_length": 1000 + (i % 3000) * 3}),
        Sample(server_id, "innodb_metrics", ts, float(STEP), purge, frozenset(purge)),
    ]


def write(server_id: int, start: datetime, polls: int) -> float:
    from store.ingest import write_samples

    rng, t0, batch = np.random.default_rng(1), time.perf_counter(), []
    for i in range(polls):
        batch += poll_samples(server_id, i, start + timedelta(seconds=STEP * i), rng)
        if len(batch) >= 500:
            write_samples(batch)
            batch = []
    write_samples(batch)
    return time.perf_counter() - t0


class StoreClock:
    """Time spent inside store.query during a request."""

    def __init__(self):
        from store import query

        self.spent = 0.0
        self.depth = 0  # totals() calls totals_and_seconds(): only the outermost call counts
        self.calls: list[tuple[str, int, float]] = []
        for name in ("series", "totals", "totals_and_seconds", "ranking_totals", "latest", "metric_names"):
            setattr(query, name, self.wrap(getattr(query, name)))

    def wrap(self, fn):
        def timed(*args, **kwargs):
            t = time.perf_counter()
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                took = time.perf_counter() - t if not self.depth else 0.0  # inside another store call: counted there
                self.spent += took
                metrics = args[1] if len(args) > 1 and isinstance(args[1], list) else []
                self.calls.append((fn.__name__, len(metrics), took * 1000))
        return timed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", action="store_true", help="print the store calls of the last request")
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from servers.models import Server
    from store import maintenance, pending_hours

    call_command("migrate", verbosity=0)
    polls = int(args.days * 86400 / STEP)
    end = datetime.now(UTC).replace(microsecond=0)
    start = end - timedelta(seconds=STEP * (polls - 1))
    server = Server.objects.create(name="bench", host="127.0.0.1", user="steady")
    spent = write(server.pk, start, polls)
    maintenance.run(end)
    print(f"data: {polls} polls of one server ({args.days:g} days at {STEP} s), "
          f"{4 + 2 * len(EVENTS) + len(MUTEXES) + 3} metrics per poll, written in {spent:.1f} s")

    client = Client(HTTP_HOST="localhost")  # an ALLOWED_HOSTS name
    client.force_login(User.objects.create_superuser("bench", "bench@example.com", "x"))
    url = (f"/servers/{server.pk}/stability/?from={start:%Y-%m-%dT%H:%M:%S}&to={end:%Y-%m-%dT%H:%M:%S}")
    clock = StoreClock()
    client.get(url)  # warm: catalog caches, connection
    totals, stores = [], []
    for _ in range(args.repeat):
        clock.spent, clock.calls = 0.0, []
        t = time.perf_counter()
        response = client.get(url)
        totals.append((time.perf_counter() - t) * 1000)
        stores.append(clock.spent * 1000)
        assert response.status_code == 200, response.status_code
    total, store = statistics.median(totals), statistics.median(stores)
    pending_hours.forget()  # as after the next compaction: the current day's hours derived again
    t = time.perf_counter()
    client.get(url)
    fresh = (time.perf_counter() - t) * 1000
    if args.calls:
        for name, n, ms in clock.calls[-12:]:
            print(f"  {name}({n} metrics): {ms:.0f} ms")
    print(f"stability view, {args.days:g} days: median {total:.0f} ms server time "
          f"(store reads {store:.0f} ms, figure + JSON + template {total - store:.0f} ms), "
          f"min {min(totals):.0f} ms, max {max(totals):.0f} ms over {args.repeat} requests; "
          f"{len(response.content) / 1024:.0f} KiB of HTML; goal < {GOAL_MS} ms: "
          f"{'met' if total < GOAL_MS else 'NOT met'}; {fresh:.0f} ms for the first request after a compaction")


if __name__ == "__main__":
    main()
