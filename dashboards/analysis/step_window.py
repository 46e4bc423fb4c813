"""A run's statistics window and the counter samples inside it (the steps of a sweep).

A step's figures come only from samples whose whole interval (ts - interval, ts]
lies inside [start + warm-up, end]: a sample that straddles the start still holds
warm-up (or idle) time, one that straddles the end holds the next step's load.
Once the polls are past the raw retention the samples are the rollup buckets
lying wholly inside the window (store.query.window_samples): the sums and the
averages stay exact over those whole minutes (or hours); the spread is then of
the buckets' rates, and `resolution` says so.
"""

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import numpy as np

from collectors.metric import TPS
from servers.models import Run
from store import levels, query
from store.points import micros
from store.query import CounterArrays, CounterSamples
from store.stats import percentile


class Window(NamedTuple):
    start: datetime  # the run's start plus its warm-up
    end: datetime


@dataclass(frozen=True)
class WindowTps:
    """TPS over a window: time-weighted average, spread of the per-sample rates."""

    samples: int
    seconds: float  # covered by the samples inside
    transactions: float
    p5: float | None
    p95: float | None
    resolution: str = "polls"  # or "1m" / "1h": the rollup buckets of a window past the raw retention

    @property
    def avg(self) -> float | None:
        return self.transactions / self.seconds if self.seconds else None


def run_window(run: Run, warmup: int | None = None) -> Window:
    """The run after its warm-up (the run's own, unless one is given); a run still going ends now."""
    trim = run.warmup_seconds if warmup is None else warmup
    end = run.ended_at or datetime.now(UTC)
    return Window(min(run.started_at + timedelta(seconds=trim), end), end)


def inside(samples: CounterSamples, window: Window) -> list[int]:
    """Indexes of the samples whose interval lies inside the window."""
    return [i for i, ts in enumerate(samples.ts) if ts <= window.end and samples.began(i) >= window.start]


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
    if not keep:
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


def polls_sums(found: dict[str, CounterArrays], window: Window) -> dict[str, tuple[float, float]]:
    """window_sums() of the polls as arrays: inside() in numpy (a run's waits are ~700 counters of hundreds of
    polls), the kept values summed in Python in their order, as the loop did."""
    lo, hi = micros(window.start), micros(window.end)
    sums = {}
    for name, a in found.items():
        began = a.ts - np.rint(a.seconds * 1e6).astype(np.int64)  # CounterSamples.began, in microseconds
        keep = (a.ts <= hi) & (began >= lo)
        sums[name] = (sum(a.deltas[keep].tolist()), sum(a.seconds[keep].tolist()))
    return sums


def runs_sums(runs: list[Run], metrics: list[str]) -> dict[int, dict[str, tuple[float, float]]]:
    """window_sums() of each run's window, reading the polls of close runs (close_batches) once: a sweep's
    steps are minutes each within an hour or two, and each read decodes the same stored hours.
    A batch that reaches past the raw retention is read run by run, as window_sums() reads it."""
    out = {}
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


def samples_in(server_id: int, metrics: list[str], window: Window) -> tuple[dict[str, CounterSamples], str]:
    """The counters' samples for the window: its polls, or past the raw retention its rollup buckets."""
    return query.window_samples(server_id, metrics, window.start, window.end)


def window_tps(server_id: int, window: Window) -> WindowTps:
    found, resolution = samples_in(server_id, [TPS], window)
    return tps_inside(found.get(TPS), window, resolution)


def tps_inside(samples: CounterSamples | None, window: Window, resolution: str = "polls") -> WindowTps:
    """Every inside delta counts in the totals; p5/p95 are of the polls' own rates, not an outage's average."""
    keep = inside(samples, window) if samples else []
    spans = samples.spanning() if keep else []
    rates = sorted(samples.deltas[i] / samples.seconds[i] for i in keep if not spans[i])
    return WindowTps(
        samples=len(keep), seconds=sum(samples.seconds[i] for i in keep),
        transactions=sum(samples.deltas[i] for i in keep),
        p5=percentile(rates, 5), p95=percentile(rates, 95), resolution=resolution,
    )


def run_tps(run: Run) -> WindowTps:
    return window_tps(run.server_id, run_window(run))


ONE_READ_SPAN = timedelta(days=2)  # runs of a server within this span: one read of their samples


def runs_tps(runs: list[Run]) -> dict[int, WindowTps]:
    """Each run's TPS, reading a server's samples once for all its runs that lie close together."""
    out = {}
    for batch in close_batches(runs):
        windows = {run.pk: run_window(run) for run in batch}
        start, end = min(w.start for w in windows.values()), max(w.end for w in windows.values())
        found, resolution = samples_in(batch[0].server_id, [TPS], Window(start, end))
        out |= {pk: tps_inside(cut(found.get(TPS), w), w, resolution) for pk, w in windows.items()}
    return out


def close_batches(runs: list[Run]) -> list[list[Run]]:
    """Runs per server, in time order, cut where a batch would span more than ONE_READ_SPAN."""
    batches: list[list[Run]] = []
    for run in sorted(runs, key=lambda r: (r.server_id, r.started_at)):
        batch = batches[-1] if batches else None
        if batch and batch[0].server_id == run.server_id and run_window(run).end - batch[0].started_at <= ONE_READ_SPAN:
            batch.append(run)
        else:
            batches.append([run])
    return batches


def cut(samples: CounterSamples | None, window: Window) -> CounterSamples | None:
    """The samples with ts in the window (the rest cannot lie inside it)."""
    if samples is None:
        return None
    lo, hi = bisect_left(samples.ts, window.start), bisect_right(samples.ts, window.end)
    return CounterSamples(samples.ts[lo:hi], samples.seconds[lo:hi], samples.deltas[lo:hi])
