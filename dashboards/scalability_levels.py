"""A sweep's levels measured from the store: each step's TPS, waits, host CPU and the load's own count."""

from collections.abc import Iterable

from dashboards.analysis import scalability
from dashboards.analysis.per_transaction import BUSY_SECONDS
from dashboards.analysis.scalability import DEFAULT_KNEE, QPS, WAIT_TIMES, Curve, Level
from dashboards.analysis.step_window import Window, WindowTps, run_window
from dashboards.analysis.topwaits import TIME_PREFIX
from dashboards.own_load_reads import own_load
from dashboards.window_reads import runs_sums, runs_window_trimmed
from servers.models import Run

LEVEL_SUMS = [WAIT_TIMES, BUSY_SECONDS, QPS]


def measure_all(runs: list[Run]) -> list[Level]:
    """Each run's level after its warm-up (the run's own, else found from its TPS: as on every page), the
    samples of close runs read once (window_reads.runs_sums)."""
    trimmed = runs_window_trimmed(runs)
    windows = {run.pk: run_window(run, trimmed[run.pk][0].seconds) for run in runs}
    sums = runs_sums(runs, LEVEL_SUMS, windows)
    return [level_of(run, windows[run.pk], sums[run.pk], trimmed[run.pk][1]) for run in runs]


def level_of(run: Run, window: Window, sums: dict[str, tuple[float, float]], tps: WindowTps) -> Level:
    waits = {name[len(TIME_PREFIX):]: (int(total), seconds) for name, (total, seconds) in sums.items()
             if total and name.startswith(TIME_PREFIX)}
    return Level(run, window, tps, waits, sums.get(BUSY_SECONDS), own_load(run), sums.get(QPS))


def curves(runs: Iterable[Run], threshold: float = DEFAULT_KNEE) -> list[Curve]:
    """The runs' curves, one per sweep (or label), each level measured inside its run's window."""
    return scalability.curves(runs, measure_all, threshold)
