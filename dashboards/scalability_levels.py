"""A sweep's levels measured from the store: each step's TPS, waits, host CPU and the load's own count."""

from collections.abc import Iterable

from dashboards.analysis import scalability
from dashboards.analysis.per_transaction import BUSY_SECONDS
from dashboards.analysis.scalability import DEFAULT_KNEE, QPS, WAIT_TIMES, Curve, Level
from dashboards.analysis.step_window import run_window
from dashboards.analysis.topwaits import TIME_PREFIX
from dashboards.own_load_reads import own_load
from dashboards.window_reads import window_sums, window_tps
from servers.models import Run


def measure(run: Run) -> Level:
    window = run_window(run)
    sums = window_sums(run.server_id, [WAIT_TIMES, BUSY_SECONDS, QPS], window)
    waits = {name[len(TIME_PREFIX):]: (int(total), seconds) for name, (total, seconds) in sums.items()
             if total and name.startswith(TIME_PREFIX)}
    return Level(run, window, window_tps(run.server_id, window), waits, sums.get(BUSY_SECONDS), own_load(run),
                 sums.get(QPS))


def curves(runs: Iterable[Run], threshold: float = DEFAULT_KNEE) -> list[Curve]:
    """The runs' curves, one per sweep (or label), each level measured inside its run's window."""
    return scalability.curves(runs, measure, threshold)
