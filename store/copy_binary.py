"""PostgreSQL binary COPY encoding of raw rows, built with struct and numpy.

Faster than adapting Python values one by one: a float8[] is one numpy
structured array (4-byte length + 8-byte value per element), or, for the
few floats most rows have (or any with a NULL), one struct per element.
"""

import struct
from datetime import UTC, datetime

import numpy as np

HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
TRAILER = struct.pack(">h", -1)
PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
FLOAT8_OID = 701
NULL = struct.pack(">i", -1)

_FLOAT8_ELEM = np.dtype([("len", ">i4"), ("v", ">f8")])
_ROW_HEAD = struct.Struct(">hiqiiii")  # nfields, len+ts, len+server, len+layout
_INT4 = struct.Struct(">ii")
_INT2 = struct.Struct(">ih")
_FLOAT8 = struct.Struct(">id")  # one float8 element: its length, its value
_ARRAY_HEAD = struct.Struct(">iiiiii")  # the field's length, then ndim, has nulls, element oid, length, lower bound
SMALL = 16  # elements: up to this many (or with a NULL), packed one by one; numpy's fixed cost is dearer


def pg_micros(ts: datetime) -> int:
    """Microseconds since 2000-01-01 UTC, exactly (no float rounding)."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    d = ts - PG_EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def array(values: list, elem: np.dtype, oid: int) -> bytes:
    """One-dimensional array with NULLs for None; field length prefix included."""
    n = len(values)
    has_null = None in values
    if elem == _FLOAT8_ELEM and (has_null or n <= SMALL):
        return _small_float8(values, has_null, oid)
    nulls = [v is None for v in values]
    rec = np.empty(n, dtype=elem)
    if has_null:
        mask = np.array(nulls, dtype=bool)
        rec["len"] = np.where(mask, -1, 8)
        rec["v"] = [0 if v is None else v for v in values]
        keep = np.ones((n, 12), dtype=bool)
        keep[mask, 4:] = False
        body = rec.view(np.uint8).reshape(n, 12)[keep].tobytes()
    else:
        rec["len"] = 8
        rec["v"] = values
        body = rec.tobytes()
    head = struct.pack(">iiiii", 1, int(has_null), oid, n, 1)
    return struct.pack(">i", len(head) + len(body)) + head + body


def _small_float8(values: list, has_null: bool, oid: int) -> bytes:
    """array() of a few float8s (a poll's float slots: most rows have none or a handful), or of some with
    NULLs, element by element: the same bytes without numpy's fixed cost of 3-20 us a row."""
    body = b"".join([NULL if v is None else _FLOAT8.pack(8, v) for v in values])
    return _ARRAY_HEAD.pack(20 + len(body), 1, int(has_null), oid, len(values), 1) + body


def raw_row(ts: datetime, server_id: int, layout_id: int, interval_ms: int | None,
            source_id: int, ivals: bytes | None, fvals: list | None) -> bytes:
    """One tuple of COPY store_raw (ts, server_id, layout_id, interval_ms, source_id, ivals, fvals).

    ivals is the varint encoding of the integer slots (store.codec).
    """
    parts = [_ROW_HEAD.pack(7, 8, pg_micros(ts), 4, server_id, 4, layout_id)]
    parts.append(NULL if interval_ms is None else _INT4.pack(4, interval_ms))
    parts.append(_INT2.pack(2, source_id))
    parts.append(NULL if ivals is None else struct.pack(">i", len(ivals)) + ivals)
    parts.append(array(fvals, _FLOAT8_ELEM, FLOAT8_OID) if fvals else NULL)
    return b"".join(parts)
