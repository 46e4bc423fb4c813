"""Fleet benchmark: server time of the fleet page (`/`), its CSV and the Servers list with N registered servers.

    .venv/bin/python bench/fleet.py [--servers 1000] [--hours 24] [--repeat 5] [--profile]

Starts a private embedded PostgreSQL and Redis (the test settings) and registers N
fake servers (no MySQL behind them). Each gets 24 h of stored data written straight
into the store through its ingest API (store.ingest.write_samples), not by polling:
the older hours one poll every --old-step seconds (compacted by the store's
maintenance, as closed hours are), the last --recent-minutes every 10 s (hot rows):
global_status (--status-metrics counters and gauges, TPS among them), history_length,
pfs_waits (--events wait events, count and time), replication on every 10th server and
node_exporter's CPU on every 5th. Each server has a health row (a few down, a few
disabled) and every 20th an alert firing. Then the fleet page (its first page, one tag's,
its tenth page), its CSV (every server, read to its end) and the Servers list are requested
with Django's test client (middleware, session, template, same process) and the median
server time is printed (and the process's CPU time in it: on a loaded machine the wall
time is mostly waiting) with the number of SQL statements a request made.
Goal: the fleet page under 300 ms with 1,000 servers. Results: docs/benchmarks.md.
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

STEP = 10
GOAL_MS = 300
PAGES = (("fleet page", "/"), ("fleet page, one tag", "/?tag=rack3"), ("fleet page 10", "/?page=10"),
         ("fleet CSV, every server", "/export/fleet.csv"), ("Servers list", "/servers/"))


def names(status_metrics: int, events: int) -> tuple[list[str], list[str], list[str]]:
    counters = ["tps", "qps", "Com_commit", "Com_rollback"] + [f"Counter_{i}" for i in range(status_metrics // 2 - 4)]
    gauges = ["Threads_running"] + [f"Gauge_{i}" for i in range(status_metrics - len(counters) - 1)]
    return counters, gauges, [f"wait/synch/mutex/innodb/event_{i}" for i in range(events)]


def poll(sid: int, k: int, i: int, ts: datetime, step: float | None, rng, shape) -> list:
    """One poll of server number k: the samples its sources would have written."""
    from store.sample import Sample

    counters, gauges, events = shape
    moves = rng.poisson(5, len(counters)) * step if step else np.zeros(len(counters), np.int64)
    status = {m: int(v) for m, v in zip(counters, moves, strict=True)}
    status |= {m: int(v) for m, v in zip(gauges, rng.integers(0, 1000, len(gauges)), strict=True)}
    counts = rng.poisson(40, len(events))
    waits = {f"wait.count:{e}": int(c) for e, c in zip(events, counts, strict=True)}
    waits |= {f"wait.time_ps:{e}": int(c) * (j + 1) * 10**7
              for j, (e, c) in enumerate(zip(events, counts, strict=True))}
    out = [
        Sample(sid, "global_status", ts, step, status, frozenset(counters)),
        Sample(sid, "history_length", ts, step, {"history_list_length": 1000 + (i % 300) * 7 + k}),
        Sample(sid, "pfs_waits", ts, step, waits, frozenset(k for k in waits)),
    ]
    if k % 10 == 0:
        out.append(Sample(sid, "replication", ts, step, {"replica.lag_s": float(i % 7), "replica.io_running": 1,
                                                          "replica.sql_running": 1}))
    if k % 5 == 0:
        out.append(Sample(sid, "node_exporter", ts, step, {"host.cpu.busy_pct": float(rng.uniform(5, 95)),
                                                            "host.cpu.user_pct": 20.0, "host.cpu.idle_pct": 70.0}))
    return out


def poll_times(end: datetime, hours: float, old_step: int, recent_minutes: int) -> list[tuple[datetime, float]]:
    """(time, interval) of every poll: sparse for the older hours, every 10 s at the end."""
    recent_from = end - timedelta(minutes=recent_minutes)
    t, out = end - timedelta(hours=hours), []
    while t < recent_from:
        out.append((t, float(old_step)))
        t += timedelta(seconds=old_step)
    t = recent_from
    while t <= end:
        out.append((t, float(STEP)))
        t += timedelta(seconds=STEP)
    return out


def register(n: int, end: datetime, args) -> list:
    """n servers with health rows, a few down or disabled, every 20th with an alert firing."""
    from alerts.models import Event, Rule
    from collectors.models import ServerHealth
    from servers.models import Server

    servers = Server.objects.bulk_create([
        Server(name=f"db{k:04d}", host=f"10.0.{k // 250}.{k % 250}", user="steady", enabled=k % 97 != 5,
               tags=["prod" if k % 3 else "test", f"rack{k % 8}"], flavor="mariadb", version="10.11.6-MariaDB",
               node_exporter_url=f"http://10.0.{k // 250}.{k % 250}:9100/metrics" if k % 5 == 0 else "")
        for k in range(n)])
    ok = {s: {"ok": True, "error": "", "duration_ms": 2.0, "at": end.isoformat()}
          for s in ("global_status", "pfs_waits", "history_length")}
    ServerHealth.objects.bulk_create([
        ServerHealth(server=s, last_poll_at=end, last_success_at=end if k % 50 != 7 else end - timedelta(minutes=5),
                     consecutive_failures=3 if k % 50 == 7 else 0, last_error="timed out" if k % 50 == 7 else "",
                     sources=ok, polls=1000) for k, s in enumerate(servers)])
    rule = Rule.objects.create(name="History above 2000", kind=Rule.THRESHOLD, metric="history_list_length",
                               threshold=2000, recipients=["dba@example.com"])
    Event.objects.bulk_create([Event(rule=rule, server=s, since=end, opened_at=end, value=2500)
                               for k, s in enumerate(servers) if k % 20 == 3])
    return servers


def write(servers: list, end: datetime, args) -> tuple[int, float]:
    from store.ingest import write_samples

    shape = names(args.status_metrics, args.events)
    times = poll_times(end, args.hours, args.old_step, args.recent_minutes)
    rng, t0, batch, values = np.random.default_rng(1), time.perf_counter(), [], 0
    for k, s in enumerate(servers):
        for i, (ts, step) in enumerate(times):
            batch += poll(s.pk, k, i, ts, step if i else None, rng, shape)
        if len(batch) >= 2000:
            values += sum(len(x.values) for x in batch)
            write_samples(batch)
            batch = []
    values += sum(len(x.values) for x in batch)
    write_samples(batch)
    return values, time.perf_counter() - t0


def timed(client, url: str, repeat: int) -> tuple[list[float], list[int], int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm: catalog caches, connection
    times, cpu, queries = [], [], []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as q:
            t, c = time.perf_counter(), time.process_time()
            response = client.get(url)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        queries.append(len(q.captured_queries))
        assert response.status_code == 200, (url, response.status_code)
    return times, cpu, queries, len(body)


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--old-step", type=int, default=900, help="seconds between the older polls")
    parser.add_argument("--recent-minutes", type=int, default=20, help="the last minutes, polled every 10 s")
    parser.add_argument("--status-metrics", type=int, default=100)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compact", action="store_true",
                        help="compact the closed hours (store maintenance): ~0.1 s a server-hour")
    parser.add_argument("--profile", action="store_true", help="cProfile one fleet request (CPU time), top 30")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the servers and data already there (DATABASE_URL pointing at a kept PostgreSQL): "
                             "their readings age, so the page shows them as old")
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    from servers.models import Server

    end = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=5)
    if args.reuse and Server.objects.exists():
        print(f"data: reused, {Server.objects.count()} servers; load average {load()}")
    else:
        write_all(args, end)
    client = Client(HTTP_HOST="localhost")  # an ALLOWED_HOSTS name
    user = User.objects.filter(username="bench").first() or User.objects.create_superuser("bench", "b@example.com", "x")
    client.force_login(user)
    for name, url in PAGES:
        if url == "/?page=10" and Server.objects.count() <= 900:
            continue
        times, cpu, queries, size = timed(client, url, args.repeat)
        total = statistics.median(times)
        goal = f"; goal < {GOAL_MS} ms: {'met' if total < GOAL_MS else 'NOT met'}" if url == "/" else ""
        print(f"{name} ({url}): median {total:.0f} ms server time, min {min(times):.0f}, max {max(times):.0f} "
              f"over {args.repeat} requests (of which this process's CPU: median {statistics.median(cpu):.0f} ms, "
              f"the rest PostgreSQL and waiting); {statistics.median(queries):.0f} SQL statements; "
              f"{size / 1024:.0f} KiB{goal}; load average {load()}", flush=True)
    if args.profile:
        profile = cProfile.Profile(time.process_time)
        profile.runcall(client.get, "/")
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)


def write_all(args, end: datetime) -> None:
    from store import maintenance

    servers = register(args.servers, end, args)
    values, spent = write(servers, end, args)
    t = time.perf_counter()
    if args.compact:
        maintenance.run(datetime.now(UTC))
    print(f"data: {args.servers} servers, {args.hours:g} h each ({values:,} values written in {spent:.0f} s, "
          f"{'compacted in %.0f s' % (time.perf_counter() - t) if args.compact else 'not compacted'}); "
          f"load average {load()}", flush=True)


if __name__ == "__main__":
    main()
