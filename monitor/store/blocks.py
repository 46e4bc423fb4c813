"""Encodings of compacted hours and rollups (bytea payloads).

times:  the polls of one server/source/hour: microsecond offsets as
        delta-of-delta varints, then intervals (ms) as delta varints; zlib.
series: one metric's values at those polls, NULL where it was not read:
        counters as plain varints (deltas, mostly zero), integer gauges as
        first value + differences, floats as a presence bitmap + float64.
Every payload starts with a flags byte; zlib is applied only when it helps.
"""

import zlib

import numpy as np

from monitor.store import codec

ZLIB = 1
INT_PLAIN, INT_DELTA, FLOAT = 0, 2, 4


def pack(flags: int, payload: bytes) -> bytes:
    squeezed = zlib.compress(payload, 6)
    if len(squeezed) < len(payload):
        return bytes([flags | ZLIB]) + squeezed
    return bytes([flags]) + payload


def unpack(blob: bytes | memoryview) -> tuple[int, bytes]:
    blob = bytes(blob)
    flags = blob[0]
    body = zlib.decompress(blob[1:]) if flags & ZLIB else blob[1:]
    return flags & ~ZLIB, body


def encode_times(ts_us: np.ndarray, iv_ms: np.ndarray, hour_us: int) -> bytes:
    d = np.diff(ts_us, prepend=hour_us)
    dd = np.diff(d, prepend=0)
    known = iv_ms >= 0
    ivd = np.zeros(len(iv_ms), np.int64)
    ivd[known] = np.diff(iv_ms[known], prepend=0)
    return pack(0, codec.encode(dd) + codec.encode(ivd, ~known))


def decode_times(blob, n: int, hour_us: int) -> tuple[np.ndarray, np.ndarray]:
    _f, body = unpack(blob)
    vals, nulls = codec.decode(body)
    ts = hour_us + np.cumsum(np.cumsum(vals[:n]))
    ivd, iv_null = vals[n:], nulls[n:]
    iv = np.full(n, -1, np.int64)
    iv[~iv_null] = np.cumsum(ivd[~iv_null])
    return ts, iv


def encode_series(vals: np.ndarray, present: np.ndarray, counter: bool) -> bytes:
    """vals: one per poll of the block (anything where not present)."""
    if vals.dtype.kind == "f":
        bitmap = np.packbits(present).tobytes()
        return pack(FLOAT, bitmap + vals[present].astype("<f8").tobytes())
    v = vals.astype(np.int64, copy=True)
    if counter:
        return pack(INT_PLAIN, codec.encode(v, ~present))
    v[present] = np.diff(v[present], prepend=0)
    return pack(INT_DELTA, codec.encode(v, ~present))


def decode_series(blob, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(values of the present polls, presence mask of the n polls)."""
    kind, body = unpack(blob)
    if kind == FLOAT:
        nbytes = (n + 7) // 8
        present = np.unpackbits(np.frombuffer(body[:nbytes], np.uint8), count=n).astype(bool)
        return np.frombuffer(body[nbytes:], "<f8").astype(np.float64), present
    vals, nulls = codec.decode(body)
    vals = vals[~nulls]
    if kind == INT_DELTA:
        vals = np.cumsum(vals)
    return vals, ~nulls


# Rollup buckets: start offset (in bucket widths), count, sum, min, max, last, interval ms sum.
FIELDS = ("idx", "count", "sum", "min", "max", "last", "ms")


def encode_buckets(b: dict[str, np.ndarray]) -> bytes:
    ints = np.concatenate([b["idx"], b["count"], b["ms"]])
    if b["sum"].dtype.kind == "f":
        floats = np.concatenate([b[k] for k in ("sum", "min", "max", "last")]).astype("<f8")
        head = codec.encode(np.array([len(b["idx"])]))
        return pack(FLOAT, head + codec.encode(ints) + floats.tobytes())
    cols = np.concatenate([ints] + [b[k] for k in ("sum", "min", "max", "last")])
    return pack(INT_PLAIN, codec.encode(cols))


def decode_buckets(blob) -> dict[str, np.ndarray]:
    kind, body = unpack(blob)
    if kind == FLOAT:
        (n,), end = _varints(body, 1)
        ints, end2 = _varints(body[end:], 3 * n)
        floats = np.frombuffer(body[end + end2:], "<f8").reshape(4, n)
        out = dict(zip(("idx", "count", "ms"), ints.reshape(3, n), strict=True))
        return out | dict(zip(("sum", "min", "max", "last"), floats, strict=True))
    vals, _ = codec.decode(body)
    return dict(zip(("idx", "count", "ms", "sum", "min", "max", "last"), vals.reshape(7, -1), strict=True))


def _varints(body: bytes, count: int) -> tuple[np.ndarray, int]:
    """The first count varints of body and the offset just after them."""
    if count == 0:
        return np.empty(0, np.int64), 0
    b = np.frombuffer(body, np.uint8)
    end = int(np.flatnonzero(b < 0x80)[count - 1]) + 1
    return codec.decode(body[:end])[0], end


def decode_series_many(blobs: list, ns: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Several hours of one metric at once: (values of present polls, presence over all polls).

    Integer hours are decoded in one numpy pass over their joined varints.
    """
    unpacked = [unpack(b) for b in blobs]
    if any(kind == FLOAT for kind, _ in unpacked):
        parts = [decode_series(b, n) for b, n in zip(blobs, ns, strict=True)]
        return (np.concatenate([p[0].astype(np.float64) for p in parts]),
                np.concatenate([p[1] for p in parts]))
    vals, nulls = codec.decode(b"".join(body for _k, body in unpacked))
    present = ~nulls
    deltas = np.array([kind == INT_DELTA for kind, _ in unpacked])
    if deltas.any():
        counts = np.array(ns)
        v = np.where(present, vals, 0)
        c = np.cumsum(v)
        starts = np.cumsum(counts) - counts
        base = np.where(starts > 0, c[np.maximum(starts - 1, 0)], 0)
        absolute = c - np.repeat(base, counts)
        vals = np.where(np.repeat(deltas, counts), absolute, vals)
    return vals[present], present


def decode_buckets_many(blobs: list, offsets: list[int]) -> dict[str, np.ndarray]:
    """Buckets of several rows, each re-numbered by its offset, in one numpy pass."""
    unpacked = [unpack(b) for b in blobs]
    if not unpacked or any(kind == FLOAT for kind, _ in unpacked):
        from monitor.store import rollups

        return rollups.concat([rollups.shift(decode_buckets(b), o) for b, o in zip(blobs, offsets, strict=True)])
    bodies = [body for _k, body in unpacked]
    joined = b"".join(bodies)
    vals, _ = codec.decode(joined)
    ends = np.flatnonzero(np.frombuffer(joined, np.uint8) < 0x80)
    byte_ends = np.cumsum([len(b) for b in bodies])
    counts = np.diff(np.r_[0, np.searchsorted(ends, byte_ends)])
    n = counts // 7
    pos = np.arange(len(vals)) - np.repeat(np.cumsum(counts) - counts, counts)
    col = pos // np.repeat(np.maximum(n, 1), counts)
    out = {name: vals[col == k] for k, name in enumerate(("idx", "count", "ms", "sum", "min", "max", "last"))}
    out["idx"] = out["idx"] + np.repeat(np.array(offsets, np.int64), n)
    return out


def encode_series_matrix(vals: np.ndarray, present: np.ndarray, counters: np.ndarray) -> list[bytes]:
    """encode_series for many integer metrics (rows) at the same polls, in one numpy pass."""
    v = vals.astype(np.int64, copy=True)
    gauges = ~counters
    if gauges.any():
        vg, pg = v[gauges], present[gauges]
        # the previous present value of each position (0 before the first)
        last = np.maximum.accumulate(np.where(pg, np.arange(v.shape[1]), -1), axis=1)
        prev = np.full_like(last, -1)
        prev[:, 1:] = last[:, :-1]
        before = np.take_along_axis(vg, np.maximum(prev, 0), axis=1)
        before[prev < 0] = 0
        v[gauges] = np.where(pg, vg - before, 0)
    return _split_pack(v, ~present, np.where(counters, INT_PLAIN, INT_DELTA))


def encode_buckets_matrix(buckets: list[dict[str, np.ndarray]]) -> list[bytes]:
    """encode_buckets for many integer bucket sets of the same length, in one numpy pass."""
    keys = ("idx", "count", "ms", "sum", "min", "max", "last")
    cols = np.stack([np.concatenate([b[k] for k in keys]) for b in buckets])
    return _split_pack(cols, None, np.full(len(buckets), INT_PLAIN))


def _split_pack(matrix: np.ndarray, nulls: np.ndarray | None, kinds: np.ndarray) -> list[bytes]:
    data, lengths = codec.varints(codec.codes(matrix, nulls))
    offs = np.r_[0, np.cumsum(lengths.reshape(matrix.shape).sum(axis=1))].tolist()
    return [pack(int(kinds[i]), data[offs[i]:offs[i + 1]]) for i in range(len(matrix))]
