"""Sweeps written through the store's public ingest, with TPS and waits known by construction.

Each step is a run of STEP seconds with a WARMUP; the server is polled every POLL
seconds from the step's start. The first poll of a step covers the warm-up
(and carries a TPS far off the step's, so counting it shows); the later ones
lie inside the step's window.
"""

from collections.abc import Mapping
from datetime import datetime, timedelta

import numpy as np

from collectors.transactions import EXPLICIT
from servers.models import Run, Server
from store.ingest import write_samples
from store.sample import Sample

POLL, WARMUP, STEP, GAP = 10, 10, 60, 30  # seconds
WAIT = "wait/synch/mutex/innodb/trx_sys_mutex"
IO_WAIT = "wait/io/file/innodb/innodb_data_file"
WARMUP_TPS = 99_999  # what the first poll of each step reads: never part of a figure
BASELINE = {1: 1000, 2: 2000, 4: 2500}  # gains per added thread: 100 %, then 25 % of the first level's
NEIGHBORS_OFF = {1: 1100, 2: 2300, 4: 4200}  # 110 %, 95 %: scales to 4


def rate(base: float, j: int) -> float:
    """The TPS of poll j of a step: base plus a wobble, so p5 and p95 differ."""
    return base + 10 * j


def inside_rates(base: float) -> list[float]:
    """The TPS of the polls inside a step's window (polls 2..6), by hand."""
    return [rate(base, j) for j in range(2, STEP // POLL + 1)]


def wait_ps(c: int, j: int) -> int:
    """trx_sys_mutex time per poll: grows with the square of the threads."""
    return c * c * 10**9 * POLL + j


WARMUP_BUSY = 999.0  # CPU-seconds the warm-up poll reads: never part of a figure


def busy_seconds(c: int, j: int) -> float:
    """Host CPU-seconds busy in poll j of a step at c threads (node_exporter's host.cpu.busy_seconds)."""
    return WARMUP_BUSY if j == 1 else 0.5 * c + 0.01 * j


HOST_CPUS = 2  # node_exporter's host.cpus in the sweeps written here


def busy_at(pct: float, j: int) -> float:
    """Host CPU-seconds busy in poll j of a step whose host was `pct` % busy over its HOST_CPUS (the warm-up
    poll reads WARMUP_BUSY)."""
    return WARMUP_BUSY if j == 1 else pct / 100 * HOST_CPUS * POLL


def host_samples(server: Server, start: datetime, c: int, busy_pct: float | None = None) -> list[Sample]:
    """node_exporter polled with the SQL sources: one host.cpu.busy_seconds delta and host.cpus per poll
    (busy_seconds(c, j), or `busy_pct` % of the CPUs busy where given)."""
    return [Sample(server.pk, "node_exporter", start + timedelta(seconds=POLL * j), float(POLL),
                   {"host.cpu.busy_seconds": busy_seconds(c, j) if busy_pct is None else busy_at(busy_pct, j),
                    "host.cpus": HOST_CPUS}, frozenset({"host.cpu.busy_seconds"}))
            for j in range(1, STEP // POLL + 1)]


def step_samples(server: Server, start: datetime, c: int, base: float, flush_neighbors: float,
                 waits_read: bool = True, counted: str = "") -> list[Sample]:
    """A step's polls; without waits_read no wait summary (performance_schema OFF, MariaDB's default). With
    `counted` (a collectors.transactions basis) each poll stores its counter as the collector does: tps is that
    counter's delta, stored beside it under its own name, and tps_explicit (0: an autocommit load) at every poll."""
    out = [Sample(server.pk, "variables", start, None, {"var:innodb_flush_neighbors": flush_neighbors})]
    for j in range(1, STEP // POLL + 1):
        ts = start + timedelta(seconds=POLL * j)
        tps = round((WARMUP_TPS if j == 1 else rate(base, j)) * POLL)
        values = {"tps": tps} | ({EXPLICIT: 0, counted: tps} if counted else {})
        out.append(Sample(server.pk, "global_status", ts, float(POLL), values, frozenset(values)))
        waits = {f"wait.time_ps:{WAIT}": wait_ps(c, j), f"wait.time_ps:{IO_WAIT}": 10**8 * POLL,
                 f"wait.count:{WAIT}": 100}
        if waits_read:
            out.append(Sample(server.pk, "pfs_waits", ts, float(POLL), waits, frozenset(waits)))
    return out


def write_sweep(server: Server, name: str, label: str, start: datetime, tps_by_level: Mapping[int, float],
                flush_neighbors: float = 1, host: bool = False,
                busy_pct: Mapping[int, float] | None = None, waits_read: bool = True,
                counted: Mapping[int, str] | None = None) -> list[Run]:
    """One run per level, back to back (with node_exporter's CPU when host, `busy_pct` % busy per level where
    given; without waits_read no wait summary; `counted`: the TPS counter each level's polls read, as
    step_samples); returns them in level order."""
    runs, samples = [], []
    for c, base in tps_by_level.items():
        runs.append(Run.objects.create(name=f"{name} x{c}", server=server, started_at=start,
                                       ended_at=start + timedelta(seconds=STEP), warmup_seconds=WARMUP,
                                       concurrency=c, sweep=name, label=label))
        samples += step_samples(server, start, c, base, flush_neighbors, waits_read, (counted or {}).get(c, ""))
        samples += host_samples(server, start, c, busy_pct[c] if busy_pct else None) if host or busy_pct else []
        start += timedelta(seconds=STEP + GAP)
    write_samples(samples)
    return runs


def two_sweeps(server: Server, start: datetime) -> tuple[list[Run], list[Run]]:
    """'baseline' (innodb_flush_neighbors=1, knee at 2) and, an hour later, 'no neighbors' (=0, knee at 4)."""
    return (write_sweep(server, "baseline", "innodb_flush_neighbors=1", start, BASELINE, flush_neighbors=1),
            write_sweep(server, "no neighbors", "innodb_flush_neighbors=0", start + timedelta(hours=1),
                        NEIGHBORS_OFF, flush_neighbors=0))


def by_hand(base: float) -> tuple[float, float, float]:
    """A level's avg TPS (transactions / seconds of the polls inside), p5 and p95, computed by hand."""
    rates = inside_rates(base)
    return sum(r * POLL for r in rates) / (POLL * len(rates)), np.percentile(rates, 5), np.percentile(rates, 95)


def page(client, admin_user, **params):
    client.force_login(admin_user)
    return client.get("/scalability/", params)
