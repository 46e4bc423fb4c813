"""Rollup buckets' sums of many metrics joined at once: read_rollups.read(sums_only=True) without a numpy call
per metric (a total of ~700 wait counters)."""

import numpy as np

Buckets = dict[str, np.ndarray]
KEYS = ("idx", "sum", "ms")
SPREAD = 2**40  # a metric's place times this, plus a bucket's index: one sort key (indexes are far below)


def integer(parts: list[Buckets]) -> bool:
    """Whether every part holds integer sums: what join() takes (floats are joined as rollups.concat does)."""
    return all(p["sum"].dtype.kind != "f" for p in parts)


def join(parts: list[list[Buckets]], hot: list[bool], width: int, lo: int, hi: int,
         overlapping: bool) -> list[Buckets]:
    """Per metric, its parts (the hot buckets first where hot says so, then its stored ones) as read_rollups.read
    joins them: each stored part's buckets read_rollups.inside() keeps, a later part winning an index, by index,
    those starting in [lo - lo % width, hi]. Every part of integer sums (integer())."""
    owner, (i, s, m) = join_flat(parts, hot, width, lo, hi, overlapping)
    ends = np.cumsum(np.bincount(owner, minlength=len(parts))).tolist()
    return [{"idx": i[a:b], "sum": s[a:b], "ms": m[a:b]} for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def join_flat(parts: list[list[Buckets]], hot: list[bool], width: int, lo: int,
              hi: int, overlapping: bool) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """join()'s buckets of every metric in three arrays (idx, sum, ms), metric after metric in their order, with
    each bucket's metric (its place in parts): a ranking sums them without a dict a metric."""
    flat = [(k, p, j == 0 and h) for k, (ps, h) in enumerate(zip(parts, hot, strict=True))
            for j, p in enumerate(ps) if len(p["idx"])]
    if not flat:
        return np.empty(0, np.int64), (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64))
    sizes = np.array([len(p["idx"]) for _k, p, _h in flat], np.int64)
    idx, sums, ms = (np.concatenate([p[key] for _k, p, _h in flat]) for key in KEYS)
    starts = idx * width
    keep = (starts >= lo) & (starts + width <= hi + 1)  # inside()
    if overlapping:  # a part with no bucket wholly inside keeps those it overlaps
        first = np.cumsum(sizes) - sizes
        none_inside = np.repeat(np.add.reduceat(keep, first) == 0, sizes)
        keep = np.where(none_inside, (starts + width > lo) & (starts <= hi), keep)
    keep |= np.repeat(np.array([h for _k, _p, h in flat]), sizes)  # the hot buckets are the range's own
    keep &= (starts >= lo - lo % width) & (starts <= hi)
    owner = np.repeat(np.array([k for k, _p, _h in flat], np.int64), sizes)
    at = np.flatnonzero(keep)
    key = owner[at] * SPREAD + idx[at]
    order = np.argsort(key, kind="stable")  # parts of a metric in their order: the last of an index wins
    ordered = key[order]
    last = np.ones(len(at), bool)
    last[:-1] = ordered[1:] != ordered[:-1]
    at = at[order][last]
    return owner[at], (idx[at], sums[at], ms[at])
