"""Breaks in a series: where no poll succeeded for more than ~1.5 intervals.

The store keeps only the polls that happened, so an outage or a restart is
simply a longer distance between two points. Readers mark it with a NaN point
(None in a Series) between the last poll before and the first after, so a
chart breaks the line, a dip finder sees a stall and a CSV leaves the cell empty.
Where the outage ended goes beside it (outage_ends): a counter's rate line leaves
out the first poll after the hole (its delta spans it), so the point after the
marker is a poll later than the outage's end.
"""

import numpy as np

from store import downsample

GAP_FACTOR = 1.5  # a step this many usual intervals long is a hole, not jitter
WINDOW = 9  # distances around a point whose median is its usual interval: local, and blind to one outage


def typical_step(ts: np.ndarray) -> int:
    """The median distance between neighbouring points (microseconds), 0 if fewer than two."""
    return int(np.median(np.diff(ts))) if len(ts) > 1 else 0


def local_steps(ts: np.ndarray) -> np.ndarray:
    """Per neighbouring pair (len(ts) - 1): the usual distance there, the median of the WINDOW around it."""
    d = np.diff(ts).astype(np.float64)
    if len(d) <= WINDOW:
        return np.full(len(d), np.median(d) if len(d) else 0.0)
    medians = np.median(np.lib.stride_tricks.sliding_window_view(d, WINDOW), axis=1)
    return medians[np.clip(np.arange(len(d)) - WINDOW // 2, 0, len(d) - WINDOW)]


def cuts(ts: np.ndarray, floor: int = 0) -> np.ndarray:
    """Bool per neighbouring pair (len(ts) - 1): True where the pair is a hole.

    floor: the least usual distance (a bucket's width: buckets are never closer).
    """
    if len(ts) < 2:
        return np.zeros(max(0, len(ts) - 1), dtype=bool)
    d = np.diff(ts)
    if d.max() <= GAP_FACTOR * max(d.min(), floor):
        return np.zeros(len(d), dtype=bool)  # no distance can be a hole: no medians needed (the usual case)
    return d > GAP_FACTOR * np.maximum(local_steps(ts), floor)


def spanning(iv_ms: np.ndarray, ts: np.ndarray, alone_us: float | None = None) -> np.ndarray:
    """Per delta (read at ts): does its interval cover a hole? Its rate is then an average over the outage.

    A delta is judged against the usual interval where it was read (the pair ending at it; the
    first, the pair after it). alone_us: with a single delta there is no usual interval: one
    longer than this spans a hole (a rollup bucket's width); None: it is taken as a reading.
    """
    if len(ts) < 2:
        return (iv_ms * 1000 > alone_us) if alone_us is not None else np.zeros(len(iv_ms), dtype=bool)
    if len(iv_ms) and iv_ms.max() * 1000 <= GAP_FACTOR * np.diff(ts).min():
        return np.zeros(len(iv_ms), dtype=bool)  # none is long, whatever the usual interval (the usual case)
    steps = local_steps(ts)
    return iv_ms * 1000 > GAP_FACTOR * np.append(steps[:1], steps)


def downsample_with_breaks(ts: np.ndarray, vals: np.ndarray, cut: np.ndarray,
                           max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """At most max_points points (min/max per bin) with a NaN between points a hole separates.

    The points on both edges of each hole are kept while holes are few, so a
    chart shows where the outage began and ended, not a bin's width off.
    """
    holes = np.flatnonzero(cut)
    if not len(holes):
        idx = downsample.minmax(ts, vals, max_points)
        return ts[idx], vals[idx]
    if 3 * len(holes) <= max_points // 2:
        idx = np.union1d(downsample.minmax(ts, vals, max_points - 3 * len(holes)), np.concatenate([holes, holes + 1]))
    else:
        idx = downsample.minmax(ts, vals, max_points // 2)
    return with_breaks(ts, vals, cut, idx)


def with_breaks(ts: np.ndarray, vals: np.ndarray, cut: np.ndarray,
                idx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The points at idx (default: all), with a NaN between two points a hole separates."""
    if idx is None:
        idx = np.arange(len(ts))
    before = np.append(0, np.cumsum(cut))  # holes before each index
    split = np.flatnonzero(before[idx[1:]] - before[idx[:-1]] > 0)  # a hole between idx[k] and idx[k+1]
    mids = (ts[idx[split]] + ts[idx[split + 1]]) // 2
    out_ts = np.insert(ts[idx], split + 1, mids)
    out_vals = np.insert(vals[idx].astype(np.float64), split + 1, np.nan)
    return out_ts, out_vals


def outage_ends(line_ts: np.ndarray, line_vals: np.ndarray, ts: np.ndarray,
                since: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each break of a line with_breaks made (its NaN points): its time, and when its outage ended.

    That is where the reading of the point after the break began (since, per point of ts): a counter's
    rate covers (ts - interval, ts], so after a left-out delta that spans the hole it began at the
    poll that ended the outage, and after a restart at the poll that found it. Never before the point
    before the break.
    """
    at = np.flatnonzero(np.isnan(line_vals))
    after = np.searchsorted(ts, line_ts[at + 1])
    return line_ts[at], np.maximum(since[after], line_ts[at - 1])
