"""A run's statistics window and the counter samples inside it (the steps of a sweep).

A step's figures come only from samples whose whole interval (ts - interval, ts]
lies inside [start + warm-up, end]: a sample that straddles the start still holds
warm-up (or idle) time, one that straddles the end holds the next step's load.
Once the polls are past the raw retention the samples are the rollup buckets
lying wholly inside the window (store.query.window_samples, read in dashboards/window_reads.py): the sums
and the averages stay exact over those whole minutes (or hours); the spread is then of
the buckets' rates, and `resolution` says so.
"""

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import numpy as np

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


def run_window(run: Any, warmup: int | None = None) -> Window:
    """The run after its warm-up (the run's own, unless one is given); a run still going ends now (one whose end
    is marked ahead too: it has lasted no longer yet), one not started yet (a start marked ahead) where it starts:
    no polls, and its own start shown, not now."""
    trim = run.warmup_seconds if warmup is None else warmup
    so_far = max(datetime.now(UTC), run.started_at)
    end = min(run.ended_at, so_far) if run.ended_at else so_far
    return Window(min(run.started_at + timedelta(seconds=trim), end), end)


def inside(samples: CounterSamples, window: Window) -> list[int]:
    """Indexes of the samples whose interval lies inside the window."""
    return [i for i, ts in enumerate(samples.ts) if ts <= window.end and samples.began(i) >= window.start]


def poll_rates(samples: CounterSamples | None, window: Window) -> list[tuple[datetime, float]]:
    """(time, rate) of each poll inside the window that measured one: a delta spanning an outage is no reading."""
    if samples is None:
        return []
    keep = inside(samples, window)
    spans = samples.spanning() if keep else []
    return [(samples.ts[i], samples.deltas[i] / samples.seconds[i]) for i in keep if not spans[i]]


def tps_inside(samples: CounterSamples | None, window: Window, resolution: str = "polls") -> WindowTps:
    """Every inside delta counts in the totals; p5/p95 are of the polls' own rates, not an outage's average."""
    if samples is None:
        return WindowTps(samples=0, seconds=0, transactions=0, p5=None, p95=None, resolution=resolution)
    keep = inside(samples, window)
    spans = samples.spanning() if keep else []
    rates = sorted(samples.deltas[i] / samples.seconds[i] for i in keep if not spans[i])
    return WindowTps(
        samples=len(keep), seconds=sum(samples.seconds[i] for i in keep),
        transactions=sum(samples.deltas[i] for i in keep),
        p5=percentile(rates, 5), p95=percentile(rates, 95), resolution=resolution,
    )


ONE_READ_SPAN = timedelta(days=2)  # runs of a server within this span: one read of their samples


def close_batches(runs: list[Any]) -> list[list[Any]]:
    """Runs per server, in time order, cut where a batch would span more than ONE_READ_SPAN."""
    batches: list[list[Any]] = []
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


def polls_sums(found: dict[str, CounterArrays], window: Window) -> dict[str, tuple[float, float]]:
    """Per counter, the sum of the deltas whose poll interval lies inside the window and the seconds they cover:
    inside() in numpy (a run's waits are ~700 counters of hundreds of polls), summed in their order as the loop did."""
    lo, hi = micros(window.start), micros(window.end)
    sums = {}
    for name, a in found.items():
        began = a.ts - np.rint(a.seconds * 1e6).astype(np.int64)  # CounterSamples.began, in microseconds
        keep = (a.ts <= hi) & (began >= lo)
        sums[name] = (sum(a.deltas[keep].tolist()), sum(a.seconds[keep].tolist()))
    return sums
