"""The time grid of a series export: one row per bucket, every column on the same row.

Sources are polled milliseconds apart and a poll jitters, so rows keyed by
each poll's own time put TPS and waits on alternating half-empty rows. A
grid puts them together: by default one bucket per poll interval, centred on
the polls (row times are whole multiples of the interval from the epoch, so two
exports join; each server's buckets are moved to its own polls, see in_phase,
so jitter never moves a poll into its neighbour's bucket); with a step, buckets
aligned to the step (a 60 s step starts each row on a whole minute), only those
wholly inside the range.

A row holds the polls read in its bucket. A counter's row is the sum of those
polls' deltas (delta mode), or that sum over the seconds the deltas cover
(rate mode): what an engineer computes by hand, where a mean of per-poll rates
would weigh an 8 s interval as much as a 12 s one. A gauge's row is the mean
of the values read in it. A bucket with no sample is an empty cell.
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from dashboards.export import csv_numbers
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
    """Buckets aligned to the step (whole minutes for 60 s), labelled by their start; bucket 0 holds `start`."""
    step = max(1, round(step_seconds * 1e6))
    first = micros(start)
    return Grid(first - first % step, step, 0)


def whole_buckets(g: Grid, start: datetime, end: datetime) -> tuple[int, int]:
    """The first and last buckets lying wholly in [start, end] (last < first: none).

    A bucket reaching before `start` would be labelled before the range, and one
    past `end` holds only part of a step under a header that says a whole step:
    both are left out rather than shown as if they were full.
    """
    first = -((g.origin - micros(start)) // g.step)  # ceil: the first bucket starting at or after `start`
    last = (micros(end) + 1 - g.origin) // g.step - 1  # end is inclusive: the last bucket ending by then
    return first, last


def whole_rows(start: datetime, end: datetime, step_seconds: float) -> int:
    """How many rows of this step lie wholly inside [start, end]."""
    first, last = whole_buckets(step_grid(start, step_seconds), start, end)
    return max(0, last - first + 1)


def poll_grid(first_poll: datetime, interval_seconds: float) -> Grid:
    """Buckets one poll interval wide (whole seconds), labelled by whole multiples of it from the epoch, each
    centred on its label; in_phase then moves them onto a server's own polls, labels unchanged.

    Labelled by the polls' own times instead, rows fell on a sub-second offset that changed with every
    request (...05.828133Z, then .833037Z): two exports did not join and spreadsheets read them as text.
    """
    step = max(1, round(interval_seconds)) * 1_000_000
    label = (micros(first_poll) + step // 2) // step * step  # the whole multiple nearest the first poll
    return Grid(label - step // 2, step, step // 2)


def back_to(g: Grid, start: datetime) -> Grid:
    """g moved back by whole steps (labels and phase unchanged) so that its bucket 0 holds `start`."""
    behind = -(-(g.origin - micros(start)) // g.step)  # steps, rounded up
    return Grid(g.origin - behind * g.step, g.step, g.label_shift)


def in_phase(g: Grid, first_poll: datetime) -> Grid:
    """g moved by at most half a step so that a server's own polls sit mid-bucket, labels unchanged.

    A server polled 5 s after the grid's first poll (jittering by milliseconds)
    would otherwise straddle bucket edges: two polls in one row, none in the next.
    Each bucket k keeps its number and label, so row k holds that server's poll
    nearest the row's time.
    """
    shift = (micros(first_poll) - g.origin - g.label_shift) % g.step
    if shift > g.step // 2:
        shift -= g.step
    return Grid(g.origin + shift, g.step, g.label_shift - shift)


def nice_step(seconds: float) -> int:
    """The smallest round step at least this long (a chart's bin width as a CSV step)."""
    return next((s for s in NICE_STEPS if s >= seconds - 1e-9), math.ceil(seconds / 86400) * 86400)


@dataclass
class Groups:
    """Samples sorted into buckets k0..k0 + n - 1: which buckets have any, and where each one's run starts."""

    n: int
    keys: np.ndarray  # bucket offsets (from k0) that hold samples
    first: np.ndarray  # index of each such bucket's first sample in the kept arrays
    inside: np.ndarray  # bool per sample given: in one of the buckets

    def dense(self, part: np.ndarray) -> list[float | None]:
        out = np.full(self.n, np.nan)
        out[self.keys] = part
        return [None if x != x else rounded(x) for x in out.tolist()]

    def dense_array(self, part: np.ndarray) -> np.ndarray:
        """dense() unrounded, NaN where a bucket has no sample: for texts(), which rounds as it writes."""
        out = np.full(self.n, np.nan)
        out[self.keys] = part
        return out

    def sums(self, v: np.ndarray) -> np.ndarray:
        return np.add.reduceat(v, self.first) if len(v) else v

    def extremes(self, v: np.ndarray) -> list[np.ndarray]:
        if not len(v):
            return [v, v]
        return [np.minimum.reduceat(v, self.first), np.maximum.reduceat(v, self.first)]

    def dense_matrix(self, part: np.ndarray) -> np.ndarray:
        """dense_array() of columns: (buckets, columns)."""
        out = np.full((self.n, part.shape[1]), np.nan)
        out[self.keys] = part
        return out

    def sums_matrix(self, v: np.ndarray) -> np.ndarray:
        """sums() of each column (rows: samples), summed in the order sums() sums one column."""
        return np.add.reduceat(v, self.first, axis=0) if len(v) else v

    def extremes_matrix(self, v: np.ndarray) -> list[np.ndarray]:
        if not len(v):
            return [v, v]
        return [np.minimum.reduceat(v, self.first, axis=0), np.maximum.reduceat(v, self.first, axis=0)]


def groups(g: Grid, k0: int, k1: int, ts: list[datetime] | np.ndarray) -> Groups:
    """Sort times (ascending; datetimes, or Unix microseconds as an int64 array) into buckets k0..k1."""
    us = ts if isinstance(ts, np.ndarray) else np.array([micros(t) for t in ts], np.int64)
    k = (us - g.origin) // g.step - k0
    inside = (k >= 0) & (k <= k1 - k0)
    keys, first = np.unique(k[inside], return_index=True)
    return Groups(k1 - k0 + 1, keys, first, inside)


def bucketize(g: Grid, k0: int, k1: int, ts: list[datetime] | np.ndarray, values: list[float | None] | np.ndarray,
              total: bool = False, minmax: bool = False, as_array: bool = False) -> list:
    """Columns for buckets k0..k1: the mean (or the sum) of each bucket's samples, then its min and
    max if asked; None where a bucket has no sample. For gauges, and for counters read from rollups.
    as_array: each column as Groups.dense_array gives it."""
    if isinstance(values, np.ndarray):  # times as microseconds, NaN for none
        keep = ~np.isnan(values)
        found = groups(g, k0, k1, ts[keep])
        v = values[keep][found.inside]
    else:
        pairs = [(t, v) for t, v in zip(ts, values, strict=True) if v is not None]
        found = groups(g, k0, k1, [t for t, _ in pairs])
        v = np.array([v for _, v in pairs], np.float64)[found.inside]
    sums = found.sums(v)
    parts = [sums if total else sums / np.diff(np.r_[found.first, len(v)])]
    if minmax:
        parts += found.extremes(v)
    return [found.dense_array(p) if as_array else found.dense(p) for p in parts]


def counter_buckets(g: Grid, k0: int, k1: int, ts: list[datetime] | np.ndarray, seconds: list[float] | np.ndarray,
                    deltas: list[float] | np.ndarray, rate: bool = True, minmax: bool = False, covered: bool = False,
                    as_array: bool = False) -> list:
    """Columns for buckets k0..k1 of a counter from its polls' deltas and the seconds each covers.

    A row is the sum of its polls' deltas, or (rate) that sum over the sum of
    their seconds. Its min and max, if asked, are of the single polls (rates or
    deltas); then, if asked (covered), that sum of seconds, so the row can be
    recomputed by hand. None where a bucket has no poll.
    """
    found = groups(g, k0, k1, ts)
    d = np.array(deltas, np.float64)[found.inside]
    s = np.array(seconds, np.float64)[found.inside]
    parts = [found.sums(d) / found.sums(s) if rate else found.sums(d)]
    if minmax:
        parts += found.extremes(d / s if rate else d)
    if covered:
        parts.append(found.sums(s))
    return [found.dense_array(p) if as_array else found.dense(p) for p in parts]


def bucketize_matrix(g: Grid, k0: int, k1: int, ts: np.ndarray, values: np.ndarray,
                     minmax: bool = False) -> list[np.ndarray]:
    """bucketize() of columns read at every one of the same polls (values: a row per time, no NaN), all at once:
    the mean of each bucket, then its min and max if asked; (buckets, columns) each, NaN where no poll."""
    found = groups(g, k0, k1, ts)
    v = values[found.inside]
    parts = [found.sums_matrix(v) / np.diff(np.r_[found.first, len(v)])[:, None]]
    if minmax:
        parts += found.extremes_matrix(v)
    return [found.dense_matrix(p) for p in parts]


def counter_matrix(g: Grid, k0: int, k1: int, ts: np.ndarray, seconds: np.ndarray, deltas: np.ndarray,
                   rate: bool = True, minmax: bool = False, covered: bool = False) -> list[np.ndarray]:
    """counter_buckets() of counters read at every one of the same polls (deltas: a row per poll), all at once;
    (buckets, columns) each (covered: the same seconds in every column)."""
    found = groups(g, k0, k1, ts)
    d = deltas[found.inside]
    s = seconds[found.inside]
    per = found.sums(s)[:, None]
    parts = [found.sums_matrix(d) / per if rate else found.sums_matrix(d)]
    if minmax:
        parts += found.extremes_matrix(d / s[:, None] if rate else d)
    if covered:
        parts.append(np.repeat(per, d.shape[1], axis=1))
    return [found.dense_matrix(p) for p in parts]


def rounded(value: float | None, digits: int = 6) -> float | None:
    """At least `digits` significant digits, the integer part always whole: 5719.33, not 5719.333333333."""
    if value is None or value == 0 or not math.isfinite(value):
        return value
    keep = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return round(value, keep)


def texts(values: np.ndarray) -> list[str]:
    """Each value as the CSV writes csv_safe.cell(rounded(value)): empty where it is NaN or infinite."""
    return csv_numbers.texts(values)


def bucket_span(g: Grid, k: int) -> tuple[datetime, datetime]:
    """[start, end] of bucket k, the end 1 us short of the next bucket (store ranges are inclusive)."""
    return g.start_of(k), g.start_of(k + 1) - timedelta(microseconds=1)
