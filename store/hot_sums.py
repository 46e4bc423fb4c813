"""The hot rows' bucket sums of many counters at once: a total's "sum" and "ms" per bucket, per metric.

rollups.aggregate_sums() of each metric's decoded samples gives the same buckets; here each layout's
integer slots are summed per bucket as one matrix (the current hour of ~700 wait counters).
"""

from datetime import datetime

import numpy as np

from store import read_raw, rollups
from store.catalog import MetricInfo, ReadLayout

Buckets = dict[str, np.ndarray]


def bucket_sums(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout], start: datetime,
                end: datetime, width: int) -> dict[int, Buckets]:
    """idx, sum and ms of the buckets (numbered from the epoch) of the hot rows with start <= ts <= end."""
    out: dict[int, Buckets] = {}
    ids = {m.id for m in metrics}
    for mine, rows in read_raw.source_rows(server_id, ids, layouts, read_raw.SELECT_RAW, [start, end]):
        out.update(_source_sums(rows, mine, ids, width))  # a later source's samples win, as read_raw.read's
    return out


def _source_sums(rows: list[tuple], layouts: dict[int, ReadLayout], ids: set[int], width: int) -> dict[int, Buckets]:
    layout = layouts.get(rows[0][2]) if rows else None
    if layout is None or any(r[2] != layout.id for r in rows):
        # Several layouts (a bucket may hold rows of two): each metric's samples joined, then summed.
        return {mid: rollups.aggregate_sums(pts, width, 0)
                for mid, pts in read_raw.decode_rows(rows, layouts, ids).items()}
    slots = [(k, mid) for k, mid in enumerate(layout.int_ids) if mid in ids]
    floats = ids & set(layout.float_ids)
    out = {}
    if floats:
        out = {mid: rollups.aggregate_sums(pts, width, 0)
               for mid, pts in read_raw.decode_rows(rows, layouts, floats).items()}
    if slots:
        out |= _matrix_sums(rows, slots, len(layout.int_ids), width)
    return out


def _matrix_sums(rows: list[tuple], slots: list[tuple[int, int]], row_slots: int, width: int) -> dict[int, Buckets]:
    """The buckets of one layout's integer slots (of the row_slots each row holds), summed as one matrix; a slot
    whose bucket could overflow 64 bits is summed as aggregate_sums() sums it (in floats). Only the slots
    summed are put together where they are few (read_raw.int_slots: the counts of the 20 waits a page shows)."""
    ts = np.array([r[0] for r in rows], dtype=np.int64)
    iv = np.array([r[1] for r in rows], dtype=np.int64)
    vals, nulls, cols = read_raw.int_slots(b"".join(bytes(r[3]) for r in rows), len(rows), row_slots,
                                           [k for k, _ in slots])
    vals, present = vals[:, cols], ~nulls[:, cols]
    b = ts // width
    starts = np.flatnonzero(np.append(True, b[1:] != b[:-1]))
    counts = np.add.reduceat(present.astype(np.int64), starts, axis=0)
    held = np.where(present, vals, 0)
    big = np.abs(held).max(axis=0).astype(object) * counts.max(axis=0).astype(object) >= 2**63
    sums = np.add.reduceat(held, starts, axis=0)
    ms = np.add.reduceat(np.where(present, np.where(iv > 0, iv, 0)[:, None], 0), starts, axis=0)
    idx = b[starts]
    seen = counts > 0
    # a slot polled in every bucket (most: a ranking's hour or two of hot rows) takes its sums and intervals whole,
    # a row of the matrices turned (no boolean index a slot: 700 wait counters)
    buckets_polled = np.count_nonzero(seen, axis=0)  # a slot's
    by_slot = (sums.T.copy(), ms.T.copy())
    out = {}
    for j, (_k, mid), polled, wide in zip(range(len(slots)), slots, buckets_polled.tolist(), big.tolist(), strict=True):
        if not polled:
            continue
        if wide:
            keep = present[:, j]
            s = np.add.reduceat(vals[keep, j].astype(np.float64), np.flatnonzero(
                np.append(True, b[keep][1:] != b[keep][:-1])))
            out[mid] = {"idx": idx[seen[:, j]], "sum": s, "ms": ms[seen[:, j], j]}
        elif polled == len(idx):
            out[mid] = {"idx": idx.copy(), "sum": by_slot[0][j], "ms": by_slot[1][j]}
        else:
            out[mid] = {"idx": idx[seen[:, j]], "sum": sums[seen[:, j], j], "ms": ms[seen[:, j], j]}
    return out
