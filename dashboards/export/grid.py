"""The time grid of a series export: one row per bucket, every column on the same row.

Sources are polled milliseconds apart and a poll jitters, so rows keyed by
each poll's own time put TPS and waits on alternating half-empty rows. A
grid puts them together: by default one bucket per poll interval, centred on
the polls (the first poll of the range is a row time, so jitter never moves a
poll into its neighbour's bucket); with a step, buckets aligned to the step
(a 60 s step starts each row on a whole minute). A bucket's value is the mean
of the samples in it (a counter's deltas in delta mode are summed: the
count per step); a bucket with no sample is an empty cell.
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from store.points import from_micros, micros

NICE_STEPS = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]


@dataclass(frozen=True)
class Grid:
    origin: int  # microseconds: bucket k covers [origin + k * step, origin + (k + 1) * step)
    step: int  # microseconds
    label_shift: int  # a row's time is its bucket's start plus this

    def bucket(self, t: datetime) -> int:
        return (micros(t) - self.origin) // self.step

    def start_of(self, k: int) -> datetime:
        return from_micros(self.origin + k * self.step)

    def label(self, k: int) -> datetime:
        return from_micros(self.origin + k * self.step + self.label_shift)


def step_grid(start: datetime, step_seconds: float) -> Grid:
    """Buckets aligned to the step (whole minutes for 60 s), labelled by their start."""
    step = max(1, round(step_seconds * 1e6))
    first = micros(start)
    return Grid(first - first % step, step, 0)


def poll_grid(first_poll: datetime, interval_seconds: float) -> Grid:
    """Buckets one poll interval wide centred on the polls, labelled by the poll time."""
    step = max(1, round(interval_seconds * 1e6))
    return Grid(micros(first_poll) - step // 2, step, step // 2)


def nice_step(seconds: float) -> int:
    """The smallest round step at least this long (a chart's bin width as a CSV step)."""
    return next((s for s in NICE_STEPS if s >= seconds - 1e-9), math.ceil(seconds / 86400) * 86400)


def bucketize(grid: Grid, k0: int, k1: int, ts: list[datetime], values: list[float | None],
              total: bool = False, minmax: bool = False) -> list[list[float | None]]:
    """Columns for buckets k0..k1: the mean (or the sum) of each bucket's samples, then its min and
    max if asked; None where a bucket has no sample."""
    n = k1 - k0 + 1
    pairs = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
    if not pairs:
        return [[None] * n for _ in range(3 if minmax else 1)]
    k = (np.array([micros(t) for t, _ in pairs], np.int64) - grid.origin) // grid.step - k0
    v = np.array([v for _, v in pairs], np.float64)
    inside = (k >= 0) & (k < n)
    k, v = k[inside], v[inside]
    keys, first = np.unique(k, return_index=True)
    sums = np.add.reduceat(v, first) if len(v) else v
    parts = [sums if total else sums / np.diff(np.r_[first, len(v)])]
    if minmax:
        parts += [np.minimum.reduceat(v, first), np.maximum.reduceat(v, first)] if len(v) else [v, v]
    out = []
    for part in parts:
        dense = np.full(n, np.nan)
        dense[keys] = part
        out.append([None if x != x else rounded(x) for x in dense.tolist()])
    return out


def rounded(value: float | None, digits: int = 6) -> float | None:
    """At least `digits` significant digits, the integer part always whole: 5719.33, not 5719.333333333."""
    if value is None or value == 0 or not math.isfinite(value):
        return value
    keep = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return round(value, keep)


def bucket_span(grid: Grid, k: int) -> tuple[datetime, datetime]:
    """[start, end] of bucket k, the end 1 us short of the next bucket (store ranges are inclusive)."""
    return grid.start_of(k), grid.start_of(k + 1) - timedelta(microseconds=1)
