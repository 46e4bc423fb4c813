"""The counter samples inside a run's statistics window, read from the store (analysis/step_window says which count)."""

from datetime import datetime, timedelta

from collectors.metric import TPS
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


def sums_from(server_id: int, window: Window) -> datetime:
    """Where an interval export of the window (store totals over (from, end]: the run report's top-waits
    CSV link) begins: before its first poll inside it.

    The first poll after the start measured mostly the time before it, which inside() leaves out
    of the window's statistics; the interval must leave it out too. Half the
    first inside poll's interval back: that poll's other sources, read milliseconds apart, are
    in, the poll before it is not. No poll inside: the window's end (nothing to sum).
    """
    samples = samples_in(server_id, [TPS], window)[0].get(TPS)
    keep = inside(samples, window) if samples else []
    if samples is None or not keep:
        return window.end
    return samples.ts[keep[0]] - timedelta(seconds=samples.seconds[keep[0]] / 2)


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


def samples_in(server_id: int, metrics: list[str], window: Window) -> tuple[dict[str, CounterSamples], str]:
    """The counters' samples for the window: its polls, or past the raw retention its rollup buckets."""
    return query.window_samples(server_id, metrics, window.start, window.end)


def window_tps(server_id: int, window: Window) -> WindowTps:
    found, resolution = samples_in(server_id, [TPS], window)
    return tps_inside(found.get(TPS), window, resolution)


def run_tps(run: Run) -> WindowTps:
    return window_tps(run.server_id, run_window(run))


def runs_tps(runs: list[Run]) -> dict[int, WindowTps]:
    """Each run's TPS, reading a server's samples once for all its runs that lie close together."""
    out: dict[int, WindowTps] = {}
    for batch in close_batches(runs):
        windows = {run.pk: run_window(run) for run in batch}
        start, end = min(w.start for w in windows.values()), max(w.end for w in windows.values())
        found, resolution = samples_in(batch[0].server_id, [TPS], Window(start, end))
        out |= {pk: tps_inside(cut(found.get(TPS), w), w, resolution) for pk, w in windows.items()}
    return out


def runs_sums(runs: list[Run], metrics: list[str]) -> dict[int, dict[str, tuple[float, float]]]:
    """window_sums() of each run's window, reading the polls of close runs (close_batches) once: a sweep's
    steps are minutes each within an hour or two, and each read decodes the same stored hours.
    A batch that reaches past the raw retention is read run by run, as window_sums() reads it."""
    out: dict[int, dict[str, tuple[float, float]]] = {}
    for batch in close_batches(runs):
        windows = {run.pk: run_window(run) for run in batch}
        start, end = min(w.start for w in windows.values()), max(w.end for w in windows.values())
        if levels.finest(start) != levels.FULL:
            out |= {pk: window_sums(batch[0].server_id, metrics, w) for pk, w in windows.items()}
            continue
        found = query.counter_arrays(batch[0].server_id, metrics, start, end)
        out |= {pk: polls_sums(found, w) for pk, w in windows.items()}
    return out


def runs_window_tps(runs: list[Run]) -> dict[int, WindowTps]:
    """window_tps() of each run's window, close runs read at once where the polls are kept (runs_tps() reads
    a batch at the resolution its first run's start is kept at)."""
    if all(levels.finest(min(run_window(r).start for r in batch)) == levels.FULL for batch in close_batches(runs)):
        return runs_tps(runs)
    return {run.pk: window_tps(run.server_id, run_window(run)) for run in runs}
