"""The counter samples inside a run's statistics window, read from the store (analysis/step_window says which count)."""

from datetime import datetime, timedelta
from typing import NamedTuple

from collectors.metric import TPS
from dashboards.analysis.run_summary import Warmup, warmup_in
from dashboards.analysis.step_window import (
    Window,
    WindowTps,
    close_batches,
    cut,
    inside,
    polls_sums,
    run_window,
    tps_inside,
)
from servers.models import Run
from store import levels, query
from store.query import CounterSamples


def sums_from(server_id: int, window: Window, polls: "WindowPolls | None" = None) -> datetime:
    """Where an interval export of the window (store totals over (from, end]: the run report's top-waits
    CSV link) begins: before its first poll inside it.

    The first poll after the start measured mostly the time before it, which inside() leaves out
    of the window's statistics; the interval must leave it out too. Half the
    first inside poll's interval back: that poll's other sources, read milliseconds apart, are
    in, the poll before it is not. No poll inside: the window's end (nothing to sum).
    """
    found = inside_polls(server_id, window, polls)
    return window.end if found is None else found.first - timedelta(seconds=found.first_seconds / 2)


class InsidePolls(NamedTuple):
    first: datetime  # read time of the first TPS poll inside the window
    first_seconds: float  # its interval
    last: datetime  # read time of the last


def inside_polls(server_id: int, window: Window, polls: "WindowPolls | None" = None) -> InsidePolls | None:
    """The first and last TPS polls whose interval lies inside the window (the run's statistics'); None: none.
    polls: the window's, read with TPS."""
    samples = (polls.samples([TPS]) if polls else samples_in(server_id, [TPS], window)[0]).get(TPS)
    keep = inside(samples, window) if samples else []
    if samples is None or not keep:
        return None
    return InsidePolls(samples.ts[keep[0]], samples.seconds[keep[0]], samples.ts[keep[-1]])


def window_sums(server_id: int, metrics: list[str], window: Window) -> dict[str, tuple[float, float]]:
    """Per counter: (sum of the inside deltas, seconds they cover)."""
    if levels.finest(window.start) == levels.FULL:
        return polls_sums(query.counter_arrays(server_id, metrics, window.start, window.end), window)
    found = samples_in(server_id, metrics, window)[0]
    sums = {}
    for name, samples in found.items():
        keep = inside(samples, window)
        sums[name] = (sum(samples.deltas[i] for i in keep), sum(samples.seconds[i] for i in keep))
    return sums


class WindowPolls:
    """A window's counters (and gauges) read once, for every figure of the window taken from them, while its polls
    are kept (store.query.Polls: a run's summary, waits, TPS basis and statements read its polls once, not once
    each); past the raw retention each figure reads the rollups as it did alone."""

    def __init__(self, server_id: int, metrics: list[str], window: Window):
        self.server_id, self.window = server_id, window
        full = levels.finest(window.start) == levels.FULL
        self.kept = query.polls(server_id, metrics, window.start, window.end) if full else None

    def sums(self, metrics: list[str]) -> dict[str, tuple[float, float]]:
        """window_sums() of the window."""
        if self.kept is None:
            return window_sums(self.server_id, metrics, self.window)
        return polls_sums(self.kept.counter_arrays(metrics), self.window)

    def within(self, metrics: list[str]) -> list[query.Series]:
        """query.within() of the window."""
        if self.kept is None:
            return query.within(self.server_id, metrics, self.window.start, self.window.end)
        return self.kept.within(metrics)

    def series(self, metrics: list[str], points: int) -> list[query.Series] | None:
        """query.series() of the window from these polls, where a chart of `points` reads polls; None where it reads
        rollups, or a metric was not read with them."""
        return self.kept.series(metrics, points) if self.kept and self.kept.covers(metrics) else None

    def samples(self, metrics: list[str]) -> dict[str, CounterSamples]:
        """samples_in() of the window."""
        if self.kept is None:
            return samples_in(self.server_id, metrics, self.window)[0]
        return self.kept.counter_samples(metrics)

    def interval_sums(self, metrics: list[str], start: datetime, end: datetime) -> dict[str, tuple[int | float, float]]:
        """reads.interval_sums() of (start, end] inside the window."""
        if self.kept is None:
            return query.totals_and_seconds(self.server_id, metrics, start + query.TICK, end)
        return self.kept.totals_and_seconds(metrics, start + query.TICK, end)


def samples_in(server_id: int, metrics: list[str], window: Window) -> tuple[dict[str, CounterSamples], str]:
    """The counters' samples for the window: its polls, or past the raw retention its rollup buckets."""
    return query.window_samples(server_id, metrics, window.start, window.end)


def window_tps(server_id: int, window: Window) -> WindowTps:
    found, resolution = samples_in(server_id, [TPS], window)
    return tps_inside(found.get(TPS), window, resolution)


def run_warmup(run: Run, given: int | None = None) -> Warmup:
    """The warm-up every figure of the run leaves out: a page's trim when given, else the run's own, else the
    one found in its TPS polls (run_summary.warmup_in: one read of the whole run)."""
    if given is not None:
        return Warmup(given)
    if run.warmup_seconds:
        return Warmup(run.warmup_seconds)
    return warmup_in(run, samples_in(run.server_id, [TPS], run_window(run, 0))[0].get(TPS))


def run_tps(run: Run) -> WindowTps:
    return runs_tps([run])[run.pk]


def runs_trimmed(runs: list[Run]) -> dict[int, tuple[Warmup, WindowTps]]:
    """Each run's warm-up (run_warmup) and its TPS after it, reading a server's TPS samples once for all its
    runs that lie close together, from their starts: the warm-up found is in them."""
    out: dict[int, tuple[Warmup, WindowTps]] = {}
    for batch in close_batches(runs):
        whole = {run.pk: run_window(run, 0) for run in batch}
        start, end = min(w.start for w in whole.values()), max(w.end for w in whole.values())
        found, resolution = samples_in(batch[0].server_id, [TPS], Window(start, end))
        samples = found.get(TPS)
        for run in batch:
            warmup = warmup_in(run, cut(samples, whole[run.pk]))
            window = run_window(run, warmup.seconds)
            out[run.pk] = (warmup, tps_inside(cut(samples, window), window, resolution))
    return out


def runs_tps(runs: list[Run]) -> dict[int, WindowTps]:
    """Each run's TPS after its warm-up (runs_trimmed)."""
    return {pk: tps for pk, (_, tps) in runs_trimmed(runs).items()}


def runs_sums(runs: list[Run], metrics: list[str],
              windows: dict[int, Window] | None = None) -> dict[int, dict[str, tuple[float, float]]]:
    """window_sums() of each run's window (`windows`, else the run's own warm-up on), reading the polls of close
    runs (close_batches) once: a sweep's steps are minutes each within an hour or two, and each read decodes the
    same stored hours. A batch that reaches past the raw retention is read run by run, as window_sums() reads it."""
    out: dict[int, dict[str, tuple[float, float]]] = {}
    for batch in close_batches(runs):
        picked = {run.pk: (windows or {}).get(run.pk) or run_window(run) for run in batch}
        start, end = min(w.start for w in picked.values()), max(w.end for w in picked.values())
        if levels.finest(start) != levels.FULL:
            out |= {pk: window_sums(batch[0].server_id, metrics, w) for pk, w in picked.items()}
            continue
        found = query.counter_arrays(batch[0].server_id, metrics, start, end)
        out |= {pk: polls_sums(found, w) for pk, w in picked.items()}
    return out


def runs_window_trimmed(runs: list[Run]) -> dict[int, tuple[Warmup, WindowTps]]:
    """runs_trimmed(), close runs read at once where the polls are kept (a batch is read at the resolution its
    first run's start is kept at: past the raw retention each run is read at its own)."""
    if all(levels.finest(min(r.started_at for r in batch)) == levels.FULL for batch in close_batches(runs)):
        return runs_trimmed(runs)
    return {run.pk: runs_trimmed([run])[run.pk] for run in runs}
