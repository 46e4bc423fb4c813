"""Export benchmark: 30 days at 10 s of 20 series as one CSV, streamed.

    .venv/bin/python bench/export_csv.py [--days 30] [--series 20] [--no-compact] [--via-gunicorn [--sync]]
    .venv/bin/python bench/export_csv.py --wide 1 [--profile] [--repeat 3]  # an hour of every metric, ~700 series
    DATABASE_URL=... .venv/bin/python bench/export_csv.py --wide 168 --reuse END  # the data a run left there

The wide case (the per-series cost): every metric (metrics=*) of 5 sources, about 700
series, polled every 5 s, over --wide HOURS; values per second is rows x columns over
the time.

--profile prints cProfile's top 25 by own time in wall time (PROFILE_CPU=1: CPU time;
PROFILE_SORT=cumulative: by cumulative time).

--via-gunicorn downloads it instead from gunicorn started as `up` starts it
(threaded workers, monitor/gunicorn_conf.py) with gunicorn's default 30 s worker
timeout, with an API token; --sync uses gunicorn's sync worker instead, which
kills a download at the timeout (the file ends short).

Starts a private embedded PostgreSQL and Redis (the test settings), writes the
polls through the store's ingest, compacts closed hours as `maintain` would,
then consumes /export.csv?full=1 through the view and prints: time to the
first byte and to the first data row, total time, rows and bytes, the peak of
Python memory (tracemalloc) and the process RSS before and after.
"""

import argparse
import hashlib
import os
import sys
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")
os.environ.setdefault("STORE_RAW_RETENTION_DAYS", "60")  # keep the whole range at full resolution
os.environ.setdefault("EXPORT_MAX_CELLS", str(10**9))  # 7 days of 677 series is 82 million values

STEP = 10
WIDE_STEP = 5  # the wide case: a new user's hour of every metric, 720 rows
NAMES = [
    "tps", "qps", "Com_commit", "Com_rollback", "Com_select", "Com_insert", "Com_update", "Com_delete",
    "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_log_writes", "Innodb_os_log_written",
    "Bytes_received", "Bytes_sent", "Questions", "Handler_read_key", "Handler_write", "Select_scan",
]


def wide_names() -> dict[str, tuple[list[str], list[str]]]:
    """Per source, (counters, gauges): about 700 series, a MariaDB's every metric."""
    events = [f"wait/synch/mutex/innodb/event_{i}" for i in range(120)]
    return {
        "global_status": ([f"Counter_{i}" for i in range(180)] + ["tps", "qps"], [f"Gauge_{i}" for i in range(150)]),
        "pfs_waits": ([f"wait.count:{e}" for e in events] + [f"wait.time_ps:{e}" for e in events], []),
        "innodb_mutex": ([f"mutex.waits:trx0sys.cc:{100 + i}" for i in range(50)], []),
        "innodb_metrics": ([f"innodb_metrics:counter_{i}" for i in range(54)], []),
        "history_length": ([], ["history_list_length"]),
    }


def write_wide(server_id: int, start: datetime, polls: int, step: int) -> tuple[float, int]:
    """Every source's polls every `step` s (values that move, zeros, picosecond timers)."""
    import numpy as np

    from store.ingest import write_samples
    from store.sample import Sample

    rng, began, batch, ncols = np.random.default_rng(7), time.perf_counter(), [], 0
    shape = wide_names()
    for i in range(1, polls + 1):
        ts = start + timedelta(seconds=step * i)
        for source, (counters, gauges) in shape.items():
            moves = rng.poisson(3, len(counters)) * (rng.random(len(counters)) < 0.6)
            values = {n: int(v) * (10**9 if "time_ps" in n else 1) for n, v in zip(counters, moves, strict=True)}
            values |= {n: int(v) for n, v in zip(gauges, rng.integers(0, 5000, len(gauges)), strict=True)}
            batch.append(Sample(server_id, source, ts, float(step), values, frozenset(counters)))
        if len(batch) >= 5_000:
            write_samples(batch)
            batch = []
    write_samples(batch)
    ncols = sum(len(c) + len(g) for c, g in shape.values())
    return time.perf_counter() - began, ncols


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 1e6


def write(server_id: int, start: datetime, polls: int, names: list[str]) -> float:
    from store.ingest import write_samples
    from store.sample import Sample

    began, batch = time.perf_counter(), []
    for i in range(1, polls + 1):
        values = {name: 1000 + (i * (n + 7919)) % 5000 for n, name in enumerate(names)}
        batch.append(Sample(server_id, "global_status", start + timedelta(seconds=STEP * i), float(STEP),
                            values, frozenset(values)))
        if len(batch) == 10_000:
            write_samples(batch)
            batch = []
    write_samples(batch)
    return time.perf_counter() - began


def export(server: str, names: list[str], start: datetime, end: datetime, trace: bool = True,
           profile: bool = False) -> None:
    from django.contrib.auth.models import User
    from django.test import RequestFactory

    from dashboards.export.views import series_csv

    request = RequestFactory().get("/export.csv", {
        "server": server, "metrics": ",".join(names), "from": start.isoformat(), "to": end.isoformat(),
        "full": 1})
    request.user = User.objects.get_or_create(username="bench", defaults={"is_staff": True})[0]
    rss_before = rss_mb()
    if trace:
        tracemalloc.start()
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time if os.getenv("PROFILE_CPU") else time.perf_counter)
        profiler.enable()
    began, cpu = time.perf_counter(), time.process_time()
    response = series_csv(request)
    first = first_row = None
    size = rows = cells = 0
    digest = hashlib.sha256()
    for chunk in response.streaming_content:
        digest.update(chunk)
        now = time.perf_counter() - began
        first = first if first is not None else now
        rows += chunk.count(b"\n")
        cells += chunk.count(b",")  # every value cell follows a comma (the bench's names hold none)
        if first_row is None and rows > 1:
            first_row = now
        size += len(chunk)
    total, cpu = time.perf_counter() - began, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    tracemalloc.stop()
    columns = cells // max(rows, 1)
    values = (rows - 1) * columns
    print(f"export: {rows - 1:,} rows x {columns} series ({values:,} values), {size / 1e6:.1f} MB of CSV in "
          f"{total:.2f} s ({(rows - 1) / total:,.0f} rows/s, {values / total:,.0f} values/s; this process's CPU "
          f"{cpu:.2f} s, {values / max(cpu, 1e-9):,.0f} values per CPU second); load average "
          + "/".join(f"{x:.2f}" for x in os.getloadavg()))
    if profile:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats(os.getenv("PROFILE_SORT", "tottime")).print_stats(25)
    print(f"  first byte after {first * 1000:.0f} ms, first data row after {first_row * 1000:.0f} ms; "
          f"sha256 of the file {digest.hexdigest()[:16]}")
    traced = f"Python memory peak (tracemalloc) {peak / 1e6:.1f} MB; " if trace else "(not traced) "
    print(f"  {traced}RSS {rss_before:.0f} -> {rss_mb():.0f} MB")


def via_gunicorn(names: list[str], start: datetime, end: datetime, sync: bool) -> None:
    import subprocess
    import urllib.request

    from django.contrib.auth.models import User

    from dashboards.models import ApiToken
    from monitor.management.commands.up import gunicorn_args
    from testing.mariadb import free_port

    name = "bench-gunicorn"
    user = User.objects.filter(username=name).first() or User.objects.create_superuser(name, "", "x")
    token = ApiToken.issue(user, "bench")[1]
    port = free_port()
    cmd = [sys.executable, "-m", "gunicorn", "monitor.wsgi:application",
           *gunicorn_args({"host": "127.0.0.1", "port": port, "web_workers": 1}, "WARNING"), "--timeout", "30"]
    if sync:
        cmd += ["--worker-class", "sync", "--threads", "1"]
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="monitor.settings_test")
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    query = (f"server=bench&metrics={','.join(names)}&from={start.isoformat()}&to={end.isoformat()}&full=1"
             .replace("+", "%2B"))
    try:
        time.sleep(3)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/export.csv?{query}",
                                         headers={"Authorization": f"Bearer {token}"})
        began, size, rows, ended = time.perf_counter(), 0, 0, "complete"
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                while chunk := response.read(1 << 16):
                    size += len(chunk)
                    rows += chunk.count(b"\n")
        except Exception as exc:  # noqa: BLE001 - the cut this measures
            ended = f"CUT ({type(exc).__name__})"
        total = time.perf_counter() - began
        worker = "sync" if sync else "gthread (up)"
        print(f"gunicorn {worker}, timeout 30 s: {rows - 1:,} rows, {size / 1e6:.1f} MB in {total:.1f} s: {ended}")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--series", type=int, default=20)
    parser.add_argument("--no-compact", action="store_true", help="leave every hour as hot rows")
    parser.add_argument("--no-trace", action="store_true", help="time without tracemalloc's overhead")
    parser.add_argument("--via-gunicorn", action="store_true", help="download it from gunicorn as up runs it")
    parser.add_argument("--wide", type=float, metavar="HOURS",
                        help="instead: HOURS of every metric (metrics=*, ~700 series of 5 sources) polled every 5 s")
    parser.add_argument("--profile", action="store_true", help="cProfile the export (CPU time), top 25 by own time")
    parser.add_argument("--sync", action="store_true", help="with --via-gunicorn: gunicorn's sync worker")
    parser.add_argument("--repeat", type=int, default=1, help="export it this many times (the first pays the "
                                                              "process's one-off caches: a web worker's first export)")
    parser.add_argument("--reuse", metavar="END",
                        help="export the data a previous run wrote up to END (its 'range' line), with DATABASE_URL "
                             "pointing at that run's kept PostgreSQL: the same data for two versions of the code")
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    names = NAMES[: args.series]
    step = WIDE_STEP if args.wide else STEP
    polls = int(args.wide * 3600 // step) if args.wide else args.days * 86_400 // STEP
    if args.reuse:
        end = datetime.fromisoformat(args.reuse)
    else:
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
        fill(args, names, end - timedelta(seconds=step * polls), polls, step)
    start = end - timedelta(seconds=step * polls)
    print(f"range {start.isoformat()} .. {end.isoformat()} (--reuse {end.isoformat()})")
    names = ["*"] if args.wide else names
    if args.via_gunicorn:
        via_gunicorn(names, start, end + timedelta(seconds=step), args.sync)
        if args.sync:  # the same file from up's threaded workers, for comparison
            via_gunicorn(names, start, end + timedelta(seconds=step), False)
        return
    for _ in range(args.repeat):
        export("bench", names, start, end + timedelta(seconds=step), trace=not args.no_trace, profile=args.profile)


def fill(args: argparse.Namespace, names: list[str], start: datetime, polls: int, step: int) -> None:
    """Register the server "bench" and write its polls, then compact as `maintain` would."""
    from servers.models import Server

    server = Server.objects.create(name="bench", host="127.0.0.1", user="steady", poll_interval=step)
    if args.wide:
        spent, ncols = write_wide(server.pk, start, polls, step)
        print(f"wrote {polls:,} polls x {ncols} series of 5 sources in {spent:.1f} s")
    else:
        spent = write(server.pk, start, polls, names)
        print(f"wrote {polls:,} polls x {len(names)} series in {spent:.1f} s")
    if not args.no_compact:
        from store import maintenance

        began = time.perf_counter()
        maintenance.run()
        print(f"maintain (compaction, rollups) in {time.perf_counter() - began:.1f} s")

if __name__ == "__main__":
    main()
