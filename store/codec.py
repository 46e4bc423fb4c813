"""Integer codec of the store: zigzag varints, vectorized with numpy.

A value v is written as zigzag(v) + 1 in 7-bit groups (low first, high bit =
more follows), and 0 means NULL. Zeros and small deltas, most of a monitoring
load, take one byte. Used for hot rows (one poll, all slots) and for compacted
hours (one metric, all polls of the hour).
"""

import numpy as np

MAX_BYTES = 10  # a uint64 needs at most 10 groups of 7 bits


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
    if len(ends) == len(b):  # every code is one byte: the common case
        u = b.astype(np.uint64)
    else:
        u = _multi_byte(b, ends)
    return _values(u)


def decode_at(data: bytes | memoryview, which: np.ndarray,
              ends: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """decode(data) at the places `which` only (ascending or not): every code is delimited, only those
    are put together (a few columns of a few rows of a matrix cost little more than finding the ends).
    ends: each code's last byte (np.flatnonzero(b < 0x80)), where the caller found them already."""
    which = np.asarray(which, np.int64)
    if not len(which):
        return np.empty(0, np.int64), np.empty(0, bool)
    b = np.frombuffer(data, dtype=np.uint8)
    if ends is None:
        ends = np.flatnonzero(b < 0x80)
    starts = np.where(which > 0, ends[np.maximum(which - 1, 0)] + 1, 0)
    return _values(_words(b, starts, ends[which]))


def decode_spans(b: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values, null mask) of the codes b[starts[k]:ends[k] + 1] (b: bytes as uint8), each a whole
    code: codes in parts of bytes cut anywhere (a row's first bytes), where decode_at's starts would not hold."""
    return _values(_words(b, np.asarray(starts, np.int64), np.asarray(ends, np.int64)))


def one_byte_values(b: np.ndarray) -> np.ndarray:
    """decode()'s values of codes of one byte each (b: uint8, each under 0x80); a NULL's (0) as decode() leaves it."""
    return _values(b.astype(np.uint64))[0]


def _values(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values, null mask) of uint64 codes: zigzag undone, 0 is NULL."""
    nulls = u == 0
    zz = u - np.uint64(1)
    sign = (zz & np.uint64(1)).view(np.int64)
    np.negative(sign, out=sign)
    zz >>= np.uint64(1)
    vals = zz.view(np.int64)
    vals ^= sign  # in place, as _words packs
    return vals, nulls


_U = np.uint64
# Per code length in bytes: the bytes of an 8-byte little-endian word that belong to the code.
_OWN_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [2**64 - 1] * 3, dtype=np.uint64)


# _words' packing: the groups kept in place, those moved down, and by how much (pairs, quads, the whole word).
_PACKING = tuple((_U(keep), _U(move), _U(by)) for keep, move, by in (
    (0x007F007F007F007F, 0x7F007F007F007F00, 1), (0x00003FFF00003FFF, 0x3FFF00003FFF0000, 2),
    (0x000000000FFFFFFF, 0x0FFFFFFF00000000, 4)))


def _multi_byte(b: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """uint64 codes of varints some longer than a byte.

    Each code's first 8 bytes are read as one little-endian word and their
    7-bit groups are packed together in three shift-and-mask steps (pairs,
    quads, the whole word): a dozen array operations per code instead of one
    per byte. Codes of 9 or 10 bytes (values of 2**55 and more) get their
    last groups one by one.
    """
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    return _words(b, starts, ends)


def _words(b: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """uint64 codes of the varints b[starts[k]:ends[k] + 1] (_multi_byte's packing)."""
    lengths = ends - starts + 1
    if (lengths == 1).all():  # one byte each (a gauge line's indexes and counts): the byte is the code
        return b[starts].astype(np.uint64)
    padded = np.zeros(len(b) + 8, np.uint8)
    padded[:len(b)] = b
    words = np.ndarray((len(b),), dtype="<u8", buffer=padded, strides=(1,))  # the word at every byte
    u = words[starts]
    u &= _OWN_BYTES[lengths]
    u &= _U(0x7F7F7F7F7F7F7F7F)
    for keep, move, by in _PACKING:  # in place: one array made a step, not four (a week's hot waits: 210,000 codes)
        high = u & move
        high >>= by
        u &= keep
        u |= high
    longer = np.flatnonzero(lengths > 8)
    for k in (8, 9):
        part = longer[lengths[longer] > k]
        u[part] |= (b[starts[part] + k] & 0x7F).astype(np.uint64) << _U(7 * k)
    return u


def encode(values: np.ndarray, nulls: np.ndarray | None = None) -> bytes:
    return varints(codes(values, nulls))[0]
