"""Dashboard benchmark: server time of every page of one server over 24 hours and 7 days of 10 s polls.

    .venv/bin/python bench/dashboards.py [--days 7] [--repeat 5] [--only stability,waits] [--profile PAGE]

Starts a private embedded PostgreSQL and Redis (the test settings; or DATABASE_URL / REDIS_URL, and
--reuse keeps the data already there), then writes --days of one MariaDB 10.11's polls through the
store's ingest, shaped as bench/mariadb_shape.py recorded them: its 311 status values, every one of
its 347 wait instruments (count and time, idle excepted), every InnoDB latch (the innodb_mutex
source's performance_schema fallback, every 60 s), its INNODB_METRICS with the purge counters on,
history length, the oldest transaction, variables; node_exporter's host series (4 CPUs, 2 disks,
2 interfaces); a replica's lag and threads; 200 statement digests and the rest row every 60 s;
holders of the oldest transaction, annotations, two runs and two scalability sweeps. Then the
store's maintenance (compaction and rollups), and every page is asked with Django's test client
over the last 24 hours and the whole range: median server time over --repeat requests, this
process's CPU time in them, the SQL statements and their time (every psycopg execute, Django's
cursors and the store's binary ones), and the time inside the store's reads (SQL and decoding).
Goals: under 150 ms over 24 h, 250 ms over 7 days, on a quiet machine. --profile PAGE[@24h]
prints cProfile's top functions of one request of that page (7 days, or 24 hours). --gc-freeze settles
the heap as gunicorn's workers do (monitor/web_gc.py) before the first request; every run prints the
mean wall time too and the CPU time in the cyclic garbage collector (a full collection every few requests
moves the mean, not the median).
Results go to docs/benchmarks.md ("Dashboards").
"""

import argparse
import cProfile
import gc
import json
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

STEP, SLOW_STEP = 10, 60  # the server's poll; innodb_mutex's and statements' interval
SHAPE = json.loads(Path(__file__).with_name("mariadb_shape.json").read_text())
GOALS_MS = {"24h": 150, "7d": 250}
DIGESTS = 200
PURGE_ON = ["purge_del_mark_records", "purge_upd_exist_or_extern_records", "purge_undo_log_pages", "purge_invoked",
            "purge_dml_delay_usec", "trx_undo_slots_used"]  # off in the sandbox; on where someone watches purge
CPUS, DISKS, NICS = 4, ("vda", "vdb"), ("eth0", "lo")
HOST_MODES = ("user", "nice", "system", "iowait", "irq", "softirq", "steal", "idle")


class Family:
    """One source's metrics as arrays: names, which are counters, a base level per metric."""

    def __init__(self, source: str, names: list[str], counters: set[str], base: np.ndarray, interval: int):
        self.source, self.names, self.counters, self.base, self.interval = source, names, counters, base, interval
        self.is_counter = np.array([n in counters for n in names])


def families(rng: np.random.Generator) -> list[Family]:
    src = SHAPE["sources"]
    status = src["global_status"]
    s_names = list(status["values"])
    s_base = np.array([abs(float(v)) for v in status["values"].values()]) + 1
    s_base[np.array([n in status["counters"] for n in s_names])] = rng.lognormal(3, 3, len(status["counters"]))
    events = [e for e in SHAPE["wait_instruments"] if e != "idle"]
    w_names = [f"wait.count:{e}" for e in events] + [f"wait.time_ps:{e}" for e in events]
    counts = rng.lognormal(4, 2.5, len(events))  # a few events very busy, a long tail of rare ones
    w_base = np.concatenate([counts, counts * rng.lognormal(14, 2, len(events))])  # ~1 us each, long tail
    latches = SHAPE["latches"]
    l_counts = rng.lognormal(6, 2, len(latches))
    l_names = [f"mutex.waits:{e}" for e in latches] + [f"mutex.time_ps:{e}" for e in latches]
    m = src["innodb_metrics"]
    m_names = list(m["values"]) + [f"innodb_metrics:{n}" for n in PURGE_ON if f"innodb_metrics:{n}" not in m["values"]]
    m_counters = set(m["counters"]) | {f"innodb_metrics:{n}" for n in PURGE_ON if n != "trx_undo_slots_used"}
    return [
        Family("global_status", s_names, set(status["counters"]), s_base, STEP),
        Family("pfs_waits", w_names, set(w_names), w_base, STEP),
        Family("innodb_mutex", l_names, set(l_names), np.concatenate([l_counts, l_counts * 2e6]), SLOW_STEP),
        Family("innodb_metrics", m_names, m_counters, rng.lognormal(4, 2, len(m_names)), STEP),
        Family("statements", list(src["statements"]["values"]), set(src["statements"]["counters"]),
               np.array([0.0, 180.0, 10000.0]), SLOW_STEP),
        Family("node_exporter", *host_names(), STEP),
        Family("replication", ["replica.lag_s", "replica.io_running", "replica.sql_running"], set(),
               np.array([2.0, 1.0, 1.0]), STEP),
    ]


def host_names() -> tuple[list[str], set[str], np.ndarray]:
    cpu = [f"host.cpu.{m}_pct{s}" for s in ("", *(f":{c}" for c in range(CPUS))) for m in (*HOST_MODES, "busy")]
    disk = [f"host.disk.{f}:{d}" for d in DISKS for f in ("reads", "writes", "read_bytes", "written_bytes")]
    disk_gauges = [f"host.disk.{f}:{d}" for d in DISKS for f in ("await_ms", "util_pct")]
    net = [f"host.net.{f}:{n}" for n in NICS for f in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets",
                                                        "rx_errors", "tx_errors")]
    other = ["host.context_switches", "host.interrupts", "host.swap.in_pages", "host.swap.out_pages",
             "host.cpu.busy_seconds"]
    gauges = ["host.cpus", "host.load1", "host.load5", "host.load15", "host.procs_running", "host.procs_blocked",
              *(f"host.mem.{n}_bytes" for n in ("total", "free", "available", "cached", "buffers", "used")),
              "host.swap.used_bytes"]
    names = cpu + disk + disk_gauges + net + other + gauges
    counters = set(disk + net + other)
    base = np.array([100 / len(HOST_MODES)] * len(cpu) + [500.0] * len(disk) + [3.0, 40.0] * len(DISKS)
                    + [1e4] * len(net) + [2e4, 1e4, 0.1, 0.1, 8.0] + [CPUS, 1.5, 1.4, 1.3, 3, 0, 8e9, 1e9, 4e9,
                                                                      2e9, 1e8, 4e9, 0.0])
    return names, counters, base


def poll_values(f: Family, i: int, rng: np.random.Generator, busy: float) -> dict:
    """One poll of a family: counters as deltas (integers), gauges as levels, scaled by the load's level."""
    noise = rng.gamma(20, 1 / 20, len(f.names))
    counts = np.rint(f.base * f.interval * busy * noise).astype(np.int64)
    levels = f.base * (0.9 + 0.1 * noise)
    values = dict(zip(f.names, levels.tolist(), strict=True))
    values.update((name, v) for name, v, c in zip(f.names, counts.tolist(), f.is_counter.tolist(), strict=True) if c)
    if f.source == "global_status":
        tps = int(5000 * busy * STEP * noise[0])
        values.update(tps=tps, tps_explicit=tps, qps=tps * 9, Com_commit=tps, Threads_running=int(8 * busy) + 1)
    elif f.source == "replication":
        values.update({"replica.lag_s": float((i % 360) // 6), "replica.io_running": 1, "replica.sql_running": 1})
    return values


def busy_at(i: int) -> float:
    """The load's level at poll i: steady, a stall every ~83 minutes, a quieter night."""
    night = 0.6 if (i * STEP // 3600) % 24 < 6 else 1.0
    return (0.15 if i % 500 < 20 else 1.0) * night


def write_polls(server_id: int, start: datetime, polls: int, rng: np.random.Generator) -> int:
    from store.ingest import write_samples
    from store.sample import Sample

    fams, batch, values = families(rng), [], 0
    variables = SHAPE["sources"]["variables"]["values"] | {"var:innodb_max_purge_lag": 0}
    write_samples([Sample(server_id, "variables", start, None, variables)])
    for i in range(1, polls):
        ts, busy = start + timedelta(seconds=STEP * i), busy_at(i)
        for f in fams:
            if (i * STEP) % f.interval == 0:
                v = poll_values(f, i, rng, busy)
                batch.append(Sample(server_id, f.source, ts, float(f.interval), v, frozenset(f.counters)))
        batch.append(Sample(server_id, "history_length", ts, None, {"history_list_length": 1000 + (i % 3000) * 30}))
        batch.append(Sample(server_id, "oldest_trx", ts, None, holder_gauges(i)))
        if len(batch) >= 400:
            values += sum(len(s.values) for s in batch)
            write_samples(batch)
            batch = []
    values += sum(len(s.values) for s in batch)
    write_samples(batch)
    return values


HOLDER_EVERY, HOLDER_FOR = 720, 60  # polls: a transaction left open for 10 minutes every 2 hours


def holder_gauges(i: int) -> dict:
    age = float(STEP * (i % HOLDER_EVERY)) if i % HOLDER_EVERY < HOLDER_FOR else 0.5
    return {"trx_oldest_age_s": age, "trx_read_view_age_s": age, "trx_older_60s": int(age > 60)}


def write_holders(server, start: datetime, polls: int) -> int:
    from collectors.models import TrxHolder

    rows = [TrxHolder(server=server, thread_id=1000 + k, trx_key=f"{1000 + k}/{k}/x", user="app", host="10.0.0.7",
                      state="RUNNING, Sleep", isolation="REPEATABLE READ", statement="SELECT * FROM orders",
                      idle=True, started_at=start + timedelta(seconds=STEP * k),
                      seen_at=start + timedelta(seconds=STEP * (k + HOLDER_FOR - 1)),
                      ended_at=start + timedelta(seconds=STEP * (k + HOLDER_FOR)))
            for k in range(HOLDER_EVERY, polls - HOLDER_FOR, HOLDER_EVERY)]
    TrxHolder.objects.bulk_create(rows)
    return len(rows)


def write_statements(server_id: int, start: datetime, polls: int, rng: np.random.Generator) -> int:
    from store.statements import COUNTERS, REST, StatementRow, write

    rate = rng.lognormal(2, 2, DIGESTS)
    latency = rng.lognormal(13, 2, DIGESTS).astype(np.int64) + 1_000_000  # ~0.5 ms median, long tail
    texts = {("app", f"{d:032x}"): (f"SELECT c{d} FROM t{d % 17} WHERE id = ?",
                                    f"SELECT c{d} FROM t{d % 17} WHERE id = 7") for d in range(DIGESTS)}
    rows, reads = [], 0
    for i in range(SLOW_STEP // STEP, polls, SLOW_STEP // STEP):
        ts = start + timedelta(seconds=STEP * i)
        execs = rng.poisson(rate * SLOW_STEP * busy_at(i))
        for d in range(DIGESTS):
            e = int(execs[d])
            counts = {"execs": e, "time_ps": e * int(latency[d]), "lock_ps": e * 1_000_000, "rows_sent": e * 3,
                      "rows_examined": e * (d % 97 + 1), "no_index": e if d % 17 == 0 else 0}
            rows.append(StatementRow(server_id, ts, SLOW_STEP * 1000, "app", f"{d:032x}",
                                     tuple(counts.get(n, 0) for n in COUNTERS), int(latency[d]) * 20))
        rest = (int(execs.sum() // 10), int(execs.sum()) * 100_000_000) + (0,) * (len(COUNTERS) - 2)
        rows.append(StatementRow(server_id, ts, SLOW_STEP * 1000, *REST, rest, 10**10))
        reads += 1
        if len(rows) >= 20 * DIGESTS:
            write(rows, texts if reads <= 20 else {})
            rows = []
    write(rows, {})
    return reads


def write_registry(server, start: datetime, end: datetime) -> dict:
    """Health, annotations, two runs of an hour and two sweeps of six steps, all in the last day."""
    from collectors.models import ServerHealth
    from servers.models import Annotation, Run

    ServerHealth.objects.update_or_create(server=server, defaults={
        "sources": SHAPE["health"], "last_poll_at": end, "last_success_at": end, "polls": 1000})
    for k in range(1, 8):
        Annotation.objects.create(server=server, at=end - timedelta(hours=20 * k), text=f"deploy {k}")
    day = end - timedelta(hours=23)
    runs = [Run.objects.create(name=f"oltp {k}", server=server, started_at=day + timedelta(hours=2 * k),
                               ended_at=day + timedelta(hours=2 * k + 1), warmup_seconds=300) for k in (0, 1)]
    for s, sweep in enumerate(("sweep A", "sweep B")):
        for j, threads in enumerate((1, 2, 4, 8, 16, 32)):
            at = day + timedelta(hours=6 + 2 * s, minutes=10 * j)
            Run.objects.create(name=f"{sweep} {threads}", server=server, started_at=at,
                               ended_at=at + timedelta(minutes=8), warmup_seconds=60, concurrency=threads,
                               sweep=sweep, label=f"innodb_flush_neighbors={s}")
    return {"runs": runs}


def write_all(days: float, end: datetime) -> None:
    from servers.models import Server
    from store import maintenance

    polls = int(days * 86400 / STEP)
    start = end - timedelta(seconds=STEP * (polls - 1))
    server = Server.objects.create(name="bench", host="127.0.0.1", user="steady", flavor="mariadb",
                                   version=SHAPE["version"], node_exporter_url="http://127.0.0.1:9100/metrics")
    rng = np.random.default_rng(1)
    t = time.perf_counter()
    values = write_polls(server.pk, start, polls, rng)
    reads = write_statements(server.pk, start, polls, rng)
    holders = write_holders(server, start, polls)
    write_registry(server, start, end)
    written = time.perf_counter() - t
    t = time.perf_counter()
    maintenance.run(end)
    print(f"data: {polls} polls of one server ({days:g} days at {STEP} s), {values / polls:.0f} values a poll "
          f"({values:,} in all), {reads} statement reads of {DIGESTS} digests, {holders} holders; written in "
          f"{written:.0f} s, maintenance {time.perf_counter() - t:.0f} s; load {load()}", flush=True)


class SqlClock:
    """Every statement psycopg runs (Django's cursors and the store's binary ones): count and time; with
    `listed`, each statement's start and time too."""

    def __init__(self, listed: list | None = None):
        import psycopg

        self.count, self.spent, self.listed = 0, 0.0, listed
        for name in ("execute", "executemany"):
            setattr(psycopg.Cursor, name, self.wrap(getattr(psycopg.Cursor, name)))

    def wrap(self, fn):
        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.count += 1
                self.spent += time.perf_counter() - t
                if self.listed is not None:
                    self.listed.append((time.perf_counter() - t, str(args[1])[:150]))
        return timed


class StoreClock:
    """Time inside the store's reads (store.query, store.statement_reads, store.levels): SQL and decoding."""

    READS = {"query": ("series_windows", "series_arrays", "within", "totals_and_seconds", "ranking_totals",
                       "latest_by_server", "metric_names", "counter_samples", "counter_arrays", "rollup_sums", "polls"),
             "statement_reads": ("pieces", "binned", "totals", "reads", "lines", "text", "seen_in"),
             "levels": ("available_since",)}

    def __init__(self):
        import importlib

        self.spent, self.depth = 0.0, 0
        for module, names in self.READS.items():
            found = importlib.import_module(f"store.{module}")
            for name in names:
                setattr(found, name, self.wrap(getattr(found, name)))

    def wrap(self, fn):
        def timed(*args, **kwargs):
            t = time.perf_counter()
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if not self.depth:  # a store read inside another is counted there
                    self.spent += time.perf_counter() - t
        return timed


class GcClock:
    """This process's CPU time inside the cyclic garbage collector (gc.callbacks: each collection's start and
    stop; CPU, not wall: on a loaded machine a collection's wall time holds others' work)."""

    def __init__(self):
        self.spent, self.started = 0.0, 0.0
        gc.callbacks.append(self.tick)

    def tick(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.started = time.process_time()
        else:
            self.spent += time.process_time() - self.started


def pages(server_id: int, start: datetime, end: datetime) -> dict[str, str]:
    """Every page of one server (name -> URL) over a range; runs and sweeps are their own ranges."""
    from servers.models import Run
    from store import statement_reads

    rng = f"from={start:%Y-%m-%dT%H:%M:%S}&to={end:%Y-%m-%dT%H:%M:%S}"
    runs = list(Run.objects.filter(server_id=server_id, sweep="").order_by("started_at"))
    top = max(statement_reads.totals(server_id, end - timedelta(hours=1), end), key=lambda r: r.sums["time_ps"])
    ids = ",".join(str(r.pk) for r in runs)
    s = f"/servers/{server_id}"
    return {
        "stability": f"{s}/stability/?{rng}", "waits": f"{s}/waits/?{rng}", "pressure": f"{s}/pressure/?{rng}",
        "host": f"{s}/host/?{rng}", "purge": f"{s}/purge/?{rng}", "replication": f"{s}/replication/?{rng}",
        "statements": f"{s}/statements/?{rng}", "statement": f"{s}/statements/{top.digest_id}/?{rng}",
        "explore": f"/explore/?server={server_id}&metric=tps&metric=Threads_running&metric=history_list_length&{rng}",
        "run report": f"/runs/{runs[0].pk}/report/", "compare": f"/compare/?runs={ids}",
        "compare report": f"/reports/compare/?runs={ids}",
        "scalability": "/scalability/?sweep=sweep+A&sweep=sweep+B",
        "scalability report": "/reports/scalability/?sweep=sweep+A&sweep=sweep+B",
    }


RANGE_FREE = ("run report", "compare", "compare report", "scalability", "scalability report")


def timed(client, url: str, repeat: int, clock: SqlClock, store: StoreClock, collector: GcClock) -> dict:
    client.get(url)  # warm: catalog caches, connection
    wall, cpu, sql, sql_ms, store_ms, gc_ms = [], [], [], [], [], []
    for _ in range(repeat):
        clock.count, clock.spent, store.spent, collector.spent = 0, 0.0, 0.0, 0.0
        t, c = time.perf_counter(), time.process_time()
        response = client.get(url)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        sql.append(clock.count)
        sql_ms.append(clock.spent * 1000)
        store_ms.append(store.spent * 1000)
        gc_ms.append(collector.spent * 1000)
        assert response.status_code == 200, (url, response.status_code)
    med = statistics.median
    return {"wall": med(wall), "min": min(wall), "mean": statistics.mean(wall), "gc_ms": statistics.mean(gc_ms),
            "cpu": med(cpu), "cpu_mean": statistics.mean(cpu), "sql": med(sql), "sql_ms": med(sql_ms),
            "store_ms": med(store_ms), "kib": len(response.content) / 1024}


def profile(client, url: str, where: str, top: int = 40) -> None:
    client.get(url)
    prof = cProfile.Profile()
    prof.enable()
    client.get(url)
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("cumulative").print_stats(where, top)
    stats.sort_stats("tottime").print_stats(top // 2)


def statements(client, url: str) -> None:
    """Every SQL statement of one request (after a warm one), in order, with its time."""
    client.get(url)
    listed: list = []
    SqlClock(listed)
    client.get(url)
    for spent, sql in listed:
        print(f"{spent * 1000:7.2f} ms  {' '.join(sql.split())}")
    print(f"{len(listed)} statements, {sum(s for s, _ in listed) * 1000:.1f} ms")


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated page names (see pages())")
    parser.add_argument("--ranges", default="24h,7d")
    parser.add_argument("--profile", default="", help="a page name: cProfile one request over the whole range "
                                                      "(NAME@24h: over the last 24 hours)")
    parser.add_argument("--profile-only", default=r"/(dashboards|store|servers|collectors)/",
                        help="the functions --profile lists by cumulative time: a regular expression of their files "
                             "(analysis/: the verdicts)")
    parser.add_argument("--sql", default="", help="a page name: list the SQL statements of one request (NAME@24h)")
    parser.add_argument("--reuse", action="store_true", help="keep the data already there (a kept DATABASE_URL)")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="settle the heap as gunicorn's workers do (monitor.web_gc.settle_heap) before the pages")
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from servers.models import Server
    from store import query

    call_command("migrate", verbosity=0)
    if not (args.reuse and Server.objects.filter(name="bench").exists()):
        write_all(args.days, datetime.now(UTC).replace(microsecond=0))
    server = Server.objects.get(name="bench")
    end = query.latest([server.pk], ["tps"])[(server.pk, "tps")][0]
    client = Client(HTTP_HOST="localhost")  # an ALLOWED_HOSTS name
    user = User.objects.filter(username="bench").first() or User.objects.create_superuser("bench", "b@x.org", "x")
    client.force_login(user)
    ranges = {"24h": end - timedelta(hours=24), "7d": end - timedelta(days=args.days)}
    if args.gc_freeze:
        from monitor.web_gc import settle_heap

        settle_heap()
    if args.profile:
        name, _, label = args.profile.partition("@")
        profile(client, pages(server.pk, ranges[label or "7d"], end)[name], args.profile_only)
        return
    if args.sql:
        name, _, label = args.sql.partition("@")
        statements(client, pages(server.pk, ranges[label or "7d"], end)[name])
        return
    clock, store, collector = SqlClock(), StoreClock(), GcClock()
    only = [p for p in args.only.split(",") if p]
    for label in args.ranges.split(","):
        for name, url in pages(server.pk, ranges[label], end).items():
            if (only and name not in only) or (label != "24h" and name in RANGE_FREE):
                continue
            r = timed(client, url, args.repeat, clock, store, collector)
            goal = "" if name in RANGE_FREE else f"; goal < {GOALS_MS[label]} ms: " + (
                "met" if r["wall"] < GOALS_MS[label] else "NOT met")
            print(f"{name:18} {'' if name in RANGE_FREE else label:3}: median {r['wall']:6.0f} ms "
                  f"(min {r['min']:.0f}, mean {r['mean']:.0f}, GC {r['gc_ms']:.1f}), CPU {r['cpu']:5.0f} ms "
                  f"(mean {r['cpu_mean']:.0f}), "
                  f"{r['sql']:3.0f} SQL in {r['sql_ms']:5.0f} ms, "
                  f"store reads {r['store_ms']:5.0f} ms, "
                  f"{r['kib']:5.0f} KiB{goal}; load {load()}", flush=True)


if __name__ == "__main__":
    main()
