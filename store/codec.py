"""Integer codec of the store: zigzag varints, vectorized with numpy.

A value v is written as zigzag(v) + 1 in 7-bit groups (low first, high bit =
more follows), and 0 means NULL. Zeros and small deltas, most of a monitoring
load, take one byte. Used for hot rows (one poll, all slots) and for compacted
hours (one metric, all polls of the hour).
"""

import numpy as np

MAX_BYTES = 10  # a uint64 needs at most 10 groups of 7 bits
_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)


def codes(values: np.ndarray, nulls: np.ndarray | None = None) -> np.ndarray:
    """uint64 codes of int64 values: zigzag + 1, and 0 where nulls is True."""
    v = values.astype(np.int64, copy=False)
    zz = (v.view(np.uint64) << np.uint64(1)) ^ (v >> np.int64(63)).view(np.uint64)
    out = zz + np.uint64(1)
    if nulls is not None:
        out[nulls] = 0
    return out


def varints(codes_: np.ndarray) -> tuple[bytes, np.ndarray]:
    """Varint bytes of uint64 codes, and the byte length of each code."""
    u = codes_.ravel()
    lengths = np.ones(len(u), dtype=np.int64)
    for k in range(1, MAX_BYTES):
        lengths += u >= (np.uint64(1) << np.uint64(7 * k))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    out = np.empty(int(ends[-1]) if len(u) else 0, dtype=np.uint8)
    for k in range(int(lengths.max()) if len(u) else 0):
        idx = np.flatnonzero(lengths > k)
        group = ((u[idx] >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8)
        more = (lengths[idx] > k + 1).astype(np.uint8) << 7
        out[starts[idx] + k] = group | more
    return out.tobytes(), lengths


def decode(data: bytes | memoryview) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values, null mask) from varint bytes."""
    b = np.frombuffer(data, dtype=np.uint8)
    if not len(b):
        return np.empty(0, np.int64), np.empty(0, bool)
    ends = np.flatnonzero(b < 0x80)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    if len(ends) == len(b):  # every code is one byte: the common case
        u = b.astype(np.uint64)
    else:
        pos = np.arange(len(b)) - np.repeat(starts, ends - starts + 1)
        parts = (b & 0x7F).astype(np.uint64) << _SHIFTS[pos]
        u = np.bitwise_or.reduceat(parts, starts)
    nulls = u == 0
    zz = u - np.uint64(1)
    vals = (zz >> np.uint64(1)).view(np.int64) ^ -(zz & np.uint64(1)).view(np.int64)
    return vals, nulls


def encode(values: np.ndarray, nulls: np.ndarray | None = None) -> bytes:
    return varints(codes(values, nulls))[0]
