"""A sweep's levels measured from the store: each step's TPS, waits, host CPU and the load's own count."""

from collections.abc import Iterable

from dashboards.analysis import scalability
from dashboards.analysis.per_transaction import BUSY_SECONDS
from dashboards.analysis.scalability import DEFAULT_KNEE, QPS, WAIT_TIMES, Curve, Level
from dashboards.analysis.step_window import WindowTps, run_window
from dashboards.analysis.topwaits import TIME_PREFIX
from dashboards.own_load_reads import own_load
from dashboards.window_reads import runs_sums, runs_window_tps
from servers.models import Run

LEVEL_SUMS = [WAIT_TIMES, BUSY_SECONDS, QPS]


def measure_all(runs: list[Run]) -> list[Level]:
    """Each run's level, the samples of close runs read once (window_reads.runs_sums)."""
    sums, tps = runs_sums(runs, LEVEL_SUMS), runs_window_tps(runs)
    return [level_of(run, sums[run.pk], tps[run.pk]) for run in runs]


def level_of(run: Run, sums: dict[str, tuple[float, float]], tps: WindowTps) -> Level:
    waits = {name[len(TIME_PREFIX):]: (int(total), seconds) for name, (total, seconds) in sums.items()
             if total and name.startswith(TIME_PREFIX)}
    return Level(run, run_window(run), tps, waits, sums.get(BUSY_SECONDS), own_load(run), sums.get(QPS))


def curves(runs: Iterable[Run], threshold: float = DEFAULT_KNEE) -> list[Curve]:
    """The runs' curves, one per sweep (or label), each level measured inside its run's window."""
    return scalability.curves(runs, measure_all, threshold)
