"""Min/max-preserving downsampling: per time bin, keep the lowest and the highest point."""

import numpy as np


def minmax(ts: np.ndarray, vals: np.ndarray, max_points: int) -> np.ndarray:
    """Indices (ascending) of at most max_points points keeping every bin's min and max.

    ts ascending, vals without NaN. Bins are equal slices of time, so a spike
    or a dip always survives, wherever it is. O(n): bins are contiguous runs.
    """
    n = len(ts)
    if n <= max_points:
        return np.arange(n)
    if max_points < 2:
        return np.array([int(np.argmax(vals))]) if max_points == 1 else np.empty(0, np.int64)
    bins = max_points // 2
    span = int(ts[-1] - ts[0]) + 1
    b = ((ts - ts[0]).astype(np.float64) * bins / span).astype(np.int64)
    starts = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
    counts = np.diff(np.append(starts, n))
    seg = np.repeat(np.arange(len(starts)), counts)
    lows = _first_where(vals == np.repeat(np.minimum.reduceat(vals, starts), counts), seg, len(starts))
    highs = _first_where(vals == np.repeat(np.maximum.reduceat(vals, starts), counts), seg, len(starts))
    return _in_order(lows, highs)


def _in_order(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """np.unique of both without its sort: each bin's two indices lie between those of the bins around it."""
    pairs = np.column_stack([np.minimum(lows, highs), np.maximum(lows, highs)])
    keep = np.ones(pairs.shape, bool)
    keep[:, 1] = pairs[:, 1] != pairs[:, 0]
    return pairs[keep]


def _first_where(mask: np.ndarray, seg: np.ndarray, segments: int) -> np.ndarray:
    """The first index of each segment where mask holds (every segment has one)."""
    hits = np.flatnonzero(mask)
    first = np.append(True, seg[hits][1:] != seg[hits][:-1])
    return hits[first][:segments]
