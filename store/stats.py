"""Plain statistics shared by the pages, the workload driver and the benchmarks: one definition each."""

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], p: float) -> float | None:
    """The p-th percentile (p in 0..100), interpolating linearly between the closest ranks.

    The definition of numpy's default ('linear') and of spreadsheets' PERCENTILE.INC, so a
    figure on a page can be checked by hand or in a spreadsheet. None for no values.
    """
    ordered = sorted(values)
    if not ordered:
        return None
    pos = (len(ordered) - 1) * p / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
