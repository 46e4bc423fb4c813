"""The binary COPY encoding of a float8[] field, byte by byte as PostgreSQL reads it."""

import struct

from store.copy_binary import _FLOAT8_ELEM, FLOAT8_OID, SMALL, array


def element(value: float) -> bytes:
    return struct.pack(">i", 8) + struct.pack(">d", value)


def field(has_null: int, count: int, body: bytes) -> bytes:
    head = struct.pack(">iiiii", 1, has_null, FLOAT8_OID, count, 1)  # ndim, has nulls, oid, length, lower bound
    return struct.pack(">i", len(head) + len(body)) + head + body


def test_a_few_floats_with_a_null_and_a_nan():
    got = array([1.5, None, float("nan")], _FLOAT8_ELEM, FLOAT8_OID)
    # 1.5 is 0x3FF8000000000000; a NULL element is its length -1 alone; 4 + 20 + 12 + 4 + 12 bytes
    body = b"\x00\x00\x00\x08" + bytes.fromhex("3ff8000000000000") + b"\xff\xff\xff\xff" + element(float("nan"))
    assert got == field(1, 3, body) and len(got) == 52


def test_many_floats_without_a_null_and_with_one():
    values = [i / 4 for i in range(SMALL + 5)]
    assert array(values, _FLOAT8_ELEM, FLOAT8_OID) == field(0, len(values), b"".join(map(element, values)))
    values[3] = None
    body = b"".join(b"\xff\xff\xff\xff" if v is None else element(v) for v in values)
    assert array(values, _FLOAT8_ELEM, FLOAT8_OID) == field(1, len(values), body)
