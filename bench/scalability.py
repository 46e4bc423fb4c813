"""Scalability benchmark: server time of the Scalability page and of the runs list.

    .venv/bin/python bench/scalability.py [--repeat 5]

Starts a private embedded PostgreSQL and Redis (the test settings) and writes,
through the store's ingest, polls every 10 s of one server (TPS, 80 wait
events, 20 mutexes, history length, purge counters: bench/dashboards.py's
polls): two sweeps of 8 levels (1 to 128 threads, 10 s warm-up + 60 s each)
and 184 more runs of 5 minutes, so the runs list has its 200 rows. Then it
requests /scalability/?sweep=A&sweep=B and /runs/ with Django's test client and
prints the median server time of each. Every figure on both pages comes from
the samples inside each run's window, one read per run. Results go to
docs/benchmarks.md.
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

from bench.dashboards import STEP, poll_samples  # noqa: E402 - after the settings module is chosen

LEVELS = [1, 2, 4, 8, 16, 32, 64, 128]
WARMUP, MEASURED = 10, 60
OTHER_RUNS, OTHER_SECONDS = 184, 300


def write_runs(server, start: datetime) -> tuple[int, datetime]:
    """The two sweeps, then the other runs, back to back; returns the polls written and the end."""
    from servers.models import Run
    from store.ingest import write_samples

    rng, t, polls, batch = np.random.default_rng(7), start, 0, []
    plan = [(f"sweep {s}", c, WARMUP + MEASURED) for s in "AB" for c in LEVELS]
    plan += [("", None, OTHER_SECONDS)] * OTHER_RUNS
    for k, (sweep, threads, seconds) in enumerate(plan):
        Run.objects.create(name=f"{sweep or 'run'} #{k}", server=server, started_at=t,
                           ended_at=t + timedelta(seconds=seconds), warmup_seconds=WARMUP if sweep else 0,
                           concurrency=threads, sweep=sweep, label=sweep and f"config {sweep[-1]}")
        for i in range(seconds // STEP + 1):
            batch += poll_samples(server.pk, polls + i + 1, t + timedelta(seconds=STEP * i), rng)
        polls += seconds // STEP + 1
        t += timedelta(seconds=seconds + STEP)
        if len(batch) >= 2000:
            write_samples(batch)
            batch = []
    write_samples(batch)
    return polls, t


def median_ms(client, url: str, repeat: int) -> tuple[float, float]:
    client.get(url)  # warm: catalog caches, connection
    took = []
    for _ in range(repeat):
        t = time.perf_counter()
        response = client.get(url)
        took.append((time.perf_counter() - t) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(took), min(took)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from servers.models import Server
    from store import maintenance

    call_command("migrate", verbosity=0)
    server = Server.objects.create(name="bench", host="127.0.0.1", user="steady")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    t = time.perf_counter()
    polls, end = write_runs(server, start)
    maintenance.run(end)
    print(f"data: {polls} polls of one server at {STEP} s (2 sweeps x {len(LEVELS)} levels + {OTHER_RUNS} runs), "
          f"written in {time.perf_counter() - t:.1f} s")
    client = Client(HTTP_HOST="localhost")
    client.force_login(User.objects.create_superuser("bench", "bench@example.com", "x"))
    for name, url in [("Scalability page, 2 sweeps x 8 levels", "/scalability/?sweep=sweep+A&sweep=sweep+B"),
                      ("Scalability CSV, same", "/export/scalability.csv?sweep=sweep+A&sweep=sweep+B"),
                      ("runs list, 200 runs with avg TPS", "/runs/"),
                      ("runs list sorted by avg TPS", "/runs/?sort=-tps")]:
        median, low = median_ms(client, url, args.repeat)
        print(f"{name}: median {median:.0f} ms, min {low:.0f} ms over {args.repeat} requests")


if __name__ == "__main__":
    main()
