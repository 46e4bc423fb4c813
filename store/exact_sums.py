"""Exact sums of many metrics' integer arrays at once: the totals of hundreds of counters in one numpy pass."""

import numpy as np

LOW = 32  # each int64 is split into a high and a low 32-bit half, whose sums cannot overflow int64


def exact_sum(vals: np.ndarray) -> int | float:
    """The sum of one array: exact in Python integers for integers, numpy's sum for floats."""
    if vals.dtype.kind == "f":
        return float(np.sum(vals))
    if not len(vals):
        return 0
    # Sum in int64 chunks small enough not to overflow, then add the chunks in Python.
    biggest = int(np.abs(vals).max()) or 1
    step = max(1, min(len(vals), 2**62 // biggest))
    chunks = np.add.reduceat(vals, np.arange(0, len(vals), step))
    return sum(chunks.tolist())


def group_sums(groups: list[list[np.ndarray]]) -> list[int | float]:
    """Per group, sum(exact_sum(a) for a in group): the same numbers, the integer groups summed together.

    A group holding a float array is summed as that expression does (its order of float additions is its
    result); the integer arrays of all others are joined and summed per group by 32-bit halves.
    """
    out: list[int | float] = [0] * len(groups)
    ints: list[int] = []
    for g, arrays in enumerate(groups):
        if any(a.dtype.kind == "f" for a in arrays):
            out[g] = sum(exact_sum(a) for a in arrays)
        else:
            ints.append(g)
    lengths = np.array([sum(len(a) for a in groups[g]) for g in ints], np.int64)
    filled = [g for g, n in zip(ints, lengths.tolist(), strict=True) if n]
    if not filled:
        return out
    joined = np.concatenate([a.astype(np.int64, copy=False) for g in filled for a in groups[g]])
    starts = np.concatenate(([0], np.cumsum(lengths[lengths > 0])[:-1]))
    high = np.add.reduceat(joined >> LOW, starts).tolist()  # arithmetic shift: v == high * 2**32 + low
    low = np.add.reduceat(joined & ((1 << LOW) - 1), starts).tolist()
    for g, h, lo in zip(filled, high, low, strict=True):
        out[g] = (h << LOW) + lo
    return out


def sums_by(groups: np.ndarray, vals: np.ndarray, n: int) -> tuple[list[int], list[int]]:
    """The exact sum of the integers of each group 0..n-1 (groups: each value's), in Python integers, and how many
    values each has: group_sums() of integer arrays given as one array with each value's group."""
    counts = np.bincount(groups, minlength=n)
    if not len(vals):
        return [0] * n, counts.tolist()
    order = np.argsort(groups, kind="stable")
    joined = vals.astype(np.int64, copy=False)[order]
    starts = (np.cumsum(counts) - counts)[counts > 0]
    high = np.add.reduceat(joined >> LOW, starts).tolist()  # arithmetic shift: v == high * 2**32 + low
    low = np.add.reduceat(joined & ((1 << LOW) - 1), starts).tolist()
    out = [0] * n
    for g, h, lo in zip(np.flatnonzero(counts).tolist(), high, low, strict=True):
        out[g] = (h << LOW) + lo
    return out, counts.tolist()
