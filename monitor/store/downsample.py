"""Min/max-preserving downsampling: per time bin, keep the lowest and the highest point."""

import numpy as np


def minmax(ts: np.ndarray, vals: np.ndarray, max_points: int) -> np.ndarray:
    """Indices (ascending) of at most max_points points keeping every bin's min and max.

    NaN values are never chosen as extremes.
    """
    n = len(ts)
    if n <= max_points:
        return np.arange(n)
    if max_points < 2:
        return np.array([int(np.nanargmax(vals))]) if max_points == 1 else np.empty(0, np.int64)
    bins = max_points // 2
    span = int(ts[-1] - ts[0]) + 1
    b = ((ts - ts[0]).astype(np.float64) * bins / span).astype(np.int64)
    key = np.where(np.isnan(vals), np.inf, vals) if vals.dtype.kind == "f" else vals
    order = np.lexsort((key, b))  # by bin, then by value
    sb = b[order]
    first = np.flatnonzero(np.r_[True, sb[1:] != sb[:-1]])
    last = np.r_[first[1:] - 1, len(order) - 1]
    if vals.dtype.kind == "f":
        # the max of a bin is its largest non-NaN value
        last = _last_finite(order, key, first, last)
    return np.unique(np.concatenate([order[first], order[last]]))


def _last_finite(order, key, first, last):
    k = key[order]
    fixed = last.copy()
    for j in np.flatnonzero(np.isinf(k[last]) & (k[last] > 0)):
        i = last[j]
        while i > first[j] and np.isinf(k[i]) and k[i] > 0:
            i -= 1
        fixed[j] = i
    return fixed
