"""Rollup arithmetic: buckets (count, sum, min, max, last, interval ms, rate min/max) from SampleArrays, and merging.

Buckets are numbered from an origin (the hour for 1-minute buckets, the day
for 1-hour buckets). Sums of integers stay integers (exact totals); if a
bucket could overflow 64 bits, that bucket set falls back to floats.

rmin and rmax are a counter's lowest and highest per-poll rate (delta per
second of its own interval) in the bucket: what its chart draws at a coarse
level. The min and max deltas over the mean interval are not rates any poll
measured (a missed poll's double delta read as a double rate). Intervals that
span an outage (store.breaks.spanning) are left out, as the full-resolution
line leaves them out; NaN where no poll of the bucket measured a rate.
"""

import numpy as np

from store import breaks
from store.points import SampleArrays

MINUTE_US = 60_000_000
HOUR_US = 3_600_000_000
KEYS = ("idx", "count", "sum", "min", "max", "last", "ms", "rmin", "rmax")
RATES = ("rmin", "rmax")


def poll_rates(vals: np.ndarray, iv: np.ndarray, ts: np.ndarray, width_us: int) -> np.ndarray:
    """Each poll's delta per second of its own interval; NaN where it is unknown or spans an outage.

    vals: one row per metric, or one metric (the polls at ts in both cases). A lone poll (no usual
    interval to judge it by) spans an outage when its interval is longer than a bucket.
    """
    measured = (iv > 0) & ~breaks.spanning(iv, ts, alone_us=width_us)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(measured, vals * 1000.0 / np.where(iv > 0, iv, 1), np.nan)


def aggregate(pts: SampleArrays, width_us: int, origin_us: int) -> dict[str, np.ndarray]:
    """One bucket per width with at least one point; pts sorted by time."""
    if not len(pts):
        return empty()
    b = (pts.ts - origin_us) // width_us
    starts = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
    count = np.diff(np.append(starts, len(b)))
    vals = pts.vals
    if vals.dtype.kind != "f" and int(np.abs(vals).max()) * int(count.max()) >= 2**63:
        vals = vals.astype(np.float64)
    ends = np.append(starts[1:], len(b)) - 1
    return {
        "idx": b[starts], "count": count,
        "sum": np.add.reduceat(vals, starts), "min": np.minimum.reduceat(vals, starts),
        "max": np.maximum.reduceat(vals, starts), "last": vals[ends],
        "ms": np.add.reduceat(np.where(pts.iv > 0, pts.iv, 0), starts),
    } | rate_extremes(poll_rates(pts.vals, pts.iv, pts.ts, width_us), starts)


def aggregate_sums(pts: SampleArrays, width_us: int, origin_us: int) -> dict[str, np.ndarray]:
    """aggregate()'s idx, sum and ms only (the same numbers, floats where it falls back to floats)."""
    if not len(pts):
        return {k: v for k, v in empty().items() if k in ("idx", "sum", "ms")}
    b = (pts.ts - origin_us) // width_us
    starts = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
    vals = pts.vals
    if vals.dtype.kind != "f" and int(np.abs(vals).max()) * int(np.diff(np.append(starts, len(b))).max()) >= 2**63:
        vals = vals.astype(np.float64)
    return {"idx": b[starts], "sum": np.add.reduceat(vals, starts),
            "ms": np.add.reduceat(np.where(pts.iv > 0, pts.iv, 0), starts)}


def rate_extremes(rates: np.ndarray, starts: np.ndarray, axis: int = -1) -> dict[str, np.ndarray]:
    """rmin and rmax of the buckets beginning at starts (NaN ignored: fmin, fmax)."""
    return {"rmin": np.fmin.reduceat(rates, starts, axis=axis), "rmax": np.fmax.reduceat(rates, starts, axis=axis)}


def without_rates(b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A gauge's buckets to store: its per-poll "rates" mean nothing, and are not kept."""
    return {k: v for k, v in b.items() if k not in RATES}


def empty() -> dict[str, np.ndarray]:
    return {k: np.empty(0, np.float64 if k in RATES else np.int64) for k in KEYS}


def replace(old: dict[str, np.ndarray], new: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """old with the buckets of new put in (new wins for the same index), by index."""
    keep = ~np.isin(old["idx"], new["idx"])
    floats = old["sum"].dtype.kind == "f" or new["sum"].dtype.kind == "f"
    out = {}
    for k in KEYS:
        a, b = old[k][keep], new[k]
        if floats and k in ("sum", "min", "max", "last"):
            a, b = a.astype(np.float64), b.astype(np.float64)
        out[k] = np.concatenate([a, b])
    order = np.argsort(out["idx"], kind="stable")
    return {k: v[order] for k, v in out.items()}


def shift(b: dict[str, np.ndarray], offset: int) -> dict[str, np.ndarray]:
    """Re-number buckets relative to another origin (offset in bucket widths)."""
    return b | {"idx": b["idx"] + offset}


def concat(parts: list[dict[str, np.ndarray]], keys: tuple[str, ...] = KEYS) -> dict[str, np.ndarray]:
    """Buckets of several parts by index (their columns named in keys); for an index in several parts the last
    part wins."""
    parts = [p for p in parts if len(p["idx"])]
    if not parts:
        return {k: v for k, v in empty().items() if k in keys}
    if len(parts) == 1:
        return parts[0]
    floats = "sum" in keys and any(p["sum"].dtype.kind == "f" for p in parts)  # (a rate line's have no sums)
    apart = _apart(parts)
    out = {}
    for k in keys:
        cols = [p[k] for p in (apart or parts)]
        if floats and k in ("sum", "min", "max", "last"):
            cols = [c.astype(np.float64) for c in cols]
        out[k] = np.concatenate(cols)
    if apart:
        return out
    order = np.argsort(out["idx"], kind="stable")
    idx = out["idx"][order]
    last = np.append(idx[1:] != idx[:-1], True)
    return {k: v[order][last] for k, v in out.items()}


def _apart(parts: list[dict[str, np.ndarray]]) -> list[dict[str, np.ndarray]] | None:
    """The parts in index order if each is sorted and none overlaps another (the usual case:
    stored hours, pending days and the hot hour), so joining them needs no sort; else None."""
    ordered = sorted(parts, key=lambda p: int(p["idx"][0]))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if int(a["idx"][-1]) >= int(b["idx"][0]):
            return None
    if all(len(p["idx"]) < 2 or bool((p["idx"][1:] > p["idx"][:-1]).all()) for p in ordered):
        return ordered
    return None


def rebucket(b: dict[str, np.ndarray], factor: int) -> dict[str, np.ndarray]:
    """Coarser buckets (e.g. 60 one-minute buckets -> one hour); b sorted by idx."""
    if not len(b["idx"]):
        return empty()
    idx = b["idx"] // factor
    starts = np.flatnonzero(np.append(True, idx[1:] != idx[:-1]))
    ends = np.append(starts[1:], len(idx)) - 1
    sums = b["sum"]
    if sums.dtype.kind != "f" and int(np.abs(sums).max()) * factor >= 2**63:
        sums = sums.astype(np.float64)  # as in aggregate(): a bucket that could overflow goes float
    return {
        "idx": idx[starts], "count": np.add.reduceat(b["count"], starts),
        "sum": np.add.reduceat(sums, starts), "min": np.minimum.reduceat(b["min"], starts),
        "max": np.maximum.reduceat(b["max"], starts), "last": b["last"][ends],
        "ms": np.add.reduceat(b["ms"], starts),
    } | {"rmin": np.fmin.reduceat(b["rmin"], starts), "rmax": np.fmax.reduceat(b["rmax"], starts)}


def aggregate_matrix(ts: np.ndarray, iv: np.ndarray, vals: np.ndarray, width_us: int,
                     origin_us: int) -> list[dict[str, np.ndarray]]:
    """aggregate() for many metrics read at every one of the same polls (rows of vals)."""
    b = (ts - origin_us) // width_us
    starts = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
    count = np.diff(np.append(starts, len(b)))
    ends = np.append(starts[1:], len(b)) - 1
    ms = np.add.reduceat(np.where(iv > 0, iv, 0), starts)
    sums = np.add.reduceat(vals, starts, axis=1)
    mins, maxs = np.minimum.reduceat(vals, starts, axis=1), np.maximum.reduceat(vals, starts, axis=1)
    idx = b[starts]
    rates = rate_extremes(poll_rates(vals, iv, ts, width_us), starts, axis=1)
    return [{"idx": idx, "count": count, "sum": sums[i], "min": mins[i], "max": maxs[i],
             "last": vals[i, ends], "ms": ms, "rmin": rates["rmin"][i], "rmax": rates["rmax"][i]}
            for i in range(len(vals))]
