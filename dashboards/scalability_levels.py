"""A sweep's levels measured from the store: each step's TPS, waits, host CPU and the load's own count."""

from collections.abc import Iterable
from datetime import datetime

from dashboards.analysis import scalability
from dashboards.analysis.per_transaction import BUSY_SECONDS, TPS
from dashboards.analysis.scalability import DEFAULT_KNEE, QPS, WAIT_TIMES, Curve, Level
from dashboards.analysis.step_window import Window, WindowTps, close_batches, run_window
from dashboards.analysis.topwaits import TIME_PREFIX, wait_rows
from dashboards.own_load_reads import own_load
from dashboards.per_trx_reads import window_per_transaction
from dashboards.window_reads import runs_sums, runs_window_trimmed
from servers.models import Run
from store import query

LEVEL_SUMS = [WAIT_TIMES, BUSY_SECONDS, QPS]
CPUS = "host.cpus"


def measure_all(runs: list[Run]) -> list[Level]:
    """Each run's level after its warm-up (the run's own, else found from its TPS: as on every page), the
    samples of close runs read once (window_reads.runs_sums)."""
    trimmed = runs_window_trimmed(runs)
    windows = {run.pk: run_window(run, trimmed[run.pk][0].seconds) for run in runs}
    sums = runs_sums(runs, LEVEL_SUMS, windows)
    cpus = runs_cpus(runs, windows)
    return [level_of(run, windows[run.pk], sums[run.pk], trimmed[run.pk][1], cpus[run.pk], trimmed[run.pk][0].seconds)
            for run in runs]


def runs_cpus(runs: list[Run], windows: dict[int, Window]) -> dict[int, float | None]:
    """The host's CPUs during each run's window (the most node_exporter saw there, else during its batch of
    close runs: a host's CPUs rarely change), one read per batch; None without node_exporter."""
    out: dict[int, float | None] = {}
    for batch in close_batches(runs):
        start, end = min(windows[r.pk].start for r in batch), max(windows[r.pk].end for r in batch)
        points = [(t, v) for s in query.series([batch[0].server_id], [CPUS], start, end)
                  for t, v in zip(s.ts, s.values, strict=True) if v is not None]
        for run in batch:
            out[run.pk] = most(points, windows[run.pk]) or most(points, None)
    return out


def most(points: list[tuple[datetime, float]], window: Window | None) -> float | None:
    found = [v for t, v in points if window is None or window.start <= t <= window.end]
    return max(found) if found else None


def level_of(run: Run, window: Window, sums: dict[str, tuple[float, float]], tps: WindowTps,
             cpus: float | None = None, trimmed: int = 0) -> Level:
    """trimmed: the seconds the window leaves out at the run's start (own_load compares its own count's)."""
    waits = {name[len(TIME_PREFIX):]: (int(total), seconds) for name, (total, seconds) in sums.items()
             if total and name.startswith(TIME_PREFIX)}
    per_trx = window_per_transaction(run.server_id, window, None, {**sums, TPS: (tps.transactions, tps.seconds)},
                                     wait_rows({name: total for name, (total, _s) in sums.items()}))
    return Level(run, window, tps, waits, sums.get(BUSY_SECONDS), cpus, own_load(run, trimmed), sums.get(QPS),
                 per_trx=per_trx)


def curves(runs: Iterable[Run], threshold: float = DEFAULT_KNEE) -> list[Curve]:
    """The runs' curves, one per sweep (or label), each level measured inside its run's window."""
    return scalability.curves(runs, measure_all, threshold)
