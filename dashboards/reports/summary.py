"""A run's summary figures: TPS (avg, p5, p95, CV), QPS, transactions, max history length."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dashboards.analysis.run_summary import known, rate
from dashboards.analysis.stability import Summary, summarize
from dashboards.analysis.step_window import Window, run_window
from dashboards.per_trx_reads import RUN_TIMES
from dashboards.reads import HISTORY, STATEMENT_SUMS, TPS
from dashboards.server_texts import BASIS_SERIES
from dashboards.window_reads import WindowPolls, run_warmup, window_sums
from servers.models import Run
from store import levels, query

ALL_POINTS = 10**6  # no downsampling of a run's rollup points
QPS = "qps"
EDGE_POLLS = 2  # the polls at a run's start and end, which began before it or end after it: never inside
# The other figures of a run's window (its waits' times and host CPU, its TPS basis, its statements'
# transactions), for a page that shows them to read with its summary's polls: summarize_run(also=WINDOW_FIGURES).
WINDOW_FIGURES = (*RUN_TIMES, *BASIS_SERIES, *STATEMENT_SUMS)


@dataclass(frozen=True)
class RunSummary:
    run: Run
    start: datetime  # the run's start plus the warm-up trim
    end: datetime
    # mean: every transaction over the seconds the polls inside cover (the runs page's avg TPS);
    # p5, p95, median, CV: over the per-poll rates of the polls that measured one (tps.points of them).
    tps: Summary
    qps: float | None  # every query (the qps counter) over the seconds its polls inside cover
    transactions: float | None
    max_history: float | None
    warmup: int = 0  # seconds trimmed from the start
    warmup_found: bool = False  # found from the TPS polls: the run gave none (window_reads.run_warmup)
    tps_points: Any = None  # the TPS samples summarized (None at holes), for the dips
    covered: float = 0.0  # seconds the TPS polls inside the run cover: what the avg TPS divides by
    resolution: str = "polls"  # or "1m" / "1h": a run past the raw retention, summed from its rollups
    # The window's polls as read for the summary, with what the caller asked to read beside it (summarize_run).
    polls: WindowPolls | None = field(default=None, compare=False, repr=False)

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    @property
    def partly_covered(self) -> bool:
        """Its TPS polls cover less of the run than all but its two edge polls' intervals: the server was down or
        unreachable for part of it (a run killed with its server), and its averages are of the seconds covered."""
        edges = EDGE_POLLS * self.run.server.poll_interval
        return self.resolution == "polls" and 0 < self.covered < self.seconds - edges

    @property
    def run_seconds(self) -> float:
        """The whole run's length, its warm-up included (up to now while it runs)."""
        return (self.end - self.run.started_at).total_seconds()


def warmup_overrun(s: RunSummary, trim_given: bool = False) -> str:
    """Why a run has no figures when its warm-up leaves nothing of it ("" when something is left, or the run
    has not started): an empty window otherwise shows as dashes and a 0 s length, with no reason."""
    if not s.warmup or s.run_seconds <= 0 or s.warmup < s.run_seconds:
        return ""
    if s.run.ended_at is None:
        return (f"The run is still in its warm-up of {s.warmup} s ({s.run_seconds:.0f} s so far): its figures "
                f"start at {s.start:%H:%M:%S} UTC.")
    if trim_given:
        return (f"The warm-up trim of {s.warmup} s is as long as this run ({s.run_seconds:.0f} s) or longer: "
                f"nothing of it is left, so it has no figures. Give a trim under {s.run_seconds:.0f} s.")
    return (f"Its warm-up of {s.warmup} s is as long as the run ({s.run_seconds:.0f} s) or longer: nothing of "
            f"the run is left after it, so it has no figures. Give the run a shorter warm-up (Admin → Runs), or "
            f"compare it with a warm-up trim under {s.run_seconds:.0f} s (warmup=).")


def summarize_run(run: Run, warmup: int | None = None, also: tuple[str, ...] = ()) -> RunSummary:
    """Statistics from every sample whose interval lies inside the run (after the warm-up: `warmup` seconds
    when given, else the run's own, else the one found from its TPS polls), never downsampled.

    The averages are the exact ones of the runs page (step_window: deltas over the seconds they cover).
    The per-poll rates leave out a poll whose delta spans missed polls: its rate is an average over
    the outage, not a reading, so it counts in the totals and the averages but not in p5/p95/CV.
    `also`: metrics read with the summary's (its polls), for the caller's other figures of the window.
    """
    trim = run_warmup(run, warmup)
    window = run_window(run, trim.seconds)
    polls = WindowPolls(run.server_id, [TPS, QPS, HISTORY, *also], window)
    lines, resolution = run_lines(run.server_id, window, polls)
    sums = polls.sums([TPS, QPS])
    done, covered = sums.get(TPS, (0, 0.0))
    history = known(lines.get(HISTORY))
    return RunSummary(
        run=run, start=window.start, end=window.end,
        tps=summarize(known(lines.get(TPS)), mean=rate(done, covered)),
        qps=rate(*sums.get(QPS, (0, 0.0))), transactions=done if covered else None,
        max_history=max(history) if history else None,
        warmup=trim.seconds, warmup_found=trim.found, tps_points=lines.get(TPS),
        covered=covered, resolution=resolution, polls=polls,
    )


def basis_sums(summary: RunSummary) -> dict[str, tuple[float, float]]:
    """The TPS counters (BASIS_SERIES) over the polls the run's figures use: those whose interval lies inside it.
    Its (start, end] also holds the poll read just after its start, counted before it: that poll's counter is
    not one its figures came from."""
    if summary.polls is None:
        return window_sums(summary.run.server_id, BASIS_SERIES, Window(summary.start, summary.end))
    return summary.polls.sums(BASIS_SERIES)


def run_lines(server_id: int, window: Window, polls: WindowPolls | None = None) -> tuple[dict[str, Any], str]:
    """The window's TPS and history lines: every poll inside it while the polls are kept; past the raw
    retention, the rollups' points (each minute's or hour's lowest and highest rate, or value), as their
    sums are what the averages come from then (step_window). polls: the window's, read with both."""
    level = levels.finest(window.start)  # as step_window's sums (store.query.window_samples) choose it
    if level == levels.FULL:
        found = polls.within([TPS, HISTORY]) if polls else query.within(server_id, [TPS, HISTORY], *window)
        return {s.metric: s for s in found}, "polls"
    found = query.series([server_id], [TPS, HISTORY], window.start, window.end, max_points=ALL_POINTS)
    return {s.metric: s for s in found}, level
