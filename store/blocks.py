"""Encodings of compacted hours and rollups (bytea payloads).

times:  the polls of one server/source/hour: microsecond offsets as
        delta-of-delta varints, then intervals (ms) as delta varints; zlib.
series: one metric's values at those polls, NULL where it was not read:
        counters as plain varints (deltas, mostly zero), integer gauges as
        first value + differences, floats as a presence bitmap + float64.
rollups: one metric's buckets of an hour (1m) or a day (1h), a counter's with its
        per-poll rate extremes in a part of their own (pack_buckets).
Every payload starts with a flags byte; zlib is applied only when it helps.
"""

import zlib
from collections.abc import Callable

import numpy as np

from store import codec, rollups

ZLIB = 1
INT_PLAIN, INT_DELTA, FLOAT = 0, 2, 4
REGULAR = 8  # rollup buckets: consecutive, same count and interval sum
RATES = 16  # rollup buckets with a counter's per-poll rate extremes at the end of the body (rates_tail)
# Rollup buckets with rates written since: the body before the rates (its head) and the rates tail as two
# parts, each zlib'd or not (ZLIB says so of the head, TAIL_ZLIB of the tail): pack_buckets().
SPLIT, TAIL_ZLIB = 32, 64
SQUEEZE = 0.75  # a part is zlib'd where that takes a quarter off it (inflating what hardly shrinks costs more)


def pack(flags: int, payload: bytes) -> bytes:
    squeezed = zlib.compress(payload, 6)
    if len(squeezed) < len(payload):
        return bytes([flags | ZLIB]) + squeezed
    return bytes([flags]) + payload


def unpack(blob: bytes | memoryview) -> tuple[int, bytes]:
    view = memoryview(blob)
    flags = view[0]
    body = zlib.decompress(view[1:]) if flags & ZLIB else bytes(view[1:])  # no copy before zlib
    return flags & ~ZLIB, body


def pack_buckets(flags: int, head: bytes, tail: bytes) -> bytes:
    """A rollup row: its flags, head and rates tail (rates_tail), each part zlib'd only where that takes a
    quarter off it (a busy counter's varints or a gauge's floats hardly shrink, and inflating them costs a
    read more than their bytes; quiet counters' zeros still shrink). Without rates, pack()'s layout; with
    them (SPLIT), a 4-byte length of the stored head, the head, then the tail: a total inflates no rates."""
    head_flag, head = _squeezed(head, ZLIB)
    if not tail:
        return bytes([flags | head_flag]) + head
    tail_flag, tail = _squeezed(tail, TAIL_ZLIB)
    return bytes([flags | SPLIT | head_flag | tail_flag]) + len(head).to_bytes(4, "little") + head + tail


def _squeezed(part: bytes, flag: int) -> tuple[int, bytes]:
    squeezed = zlib.compress(part, 6)
    return (flag, squeezed) if len(squeezed) <= SQUEEZE * len(part) else (0, part)


def unpack_buckets(blob: bytes | memoryview, rates: bool = True) -> tuple[int, bytes, bytes | None]:
    """(kind, head, rates tail) of a rollup row of either layout (pack_buckets; before SPLIT, pack() of the
    head and the tail joined): the tail as rates_tail() made it, None where the row has none; rates=False:
    None for any row (a total reads no rates: a SPLIT row's tail is not inflated)."""
    flags = blob[0]  # parts cut from the row as it is: a memoryview a row cost more than a 2 kB copy
    if not flags & (SPLIT | ZLIB | RATES):  # a gauge's row: its body as stored
        return flags, bytes(blob[1:]), None
    if not flags & SPLIT:
        kind, head, tail = _split_tail(*unpack(blob))
        return kind, head, tail if rates else None
    at = 5 + int.from_bytes(blob[1:5], "little")
    head = zlib.decompress(blob[5:at]) if flags & ZLIB else bytes(blob[5:at])
    tail = None if not rates else zlib.decompress(blob[at:]) if flags & TAIL_ZLIB else bytes(blob[at:])
    return flags & ~(ZLIB | SPLIT | TAIL_ZLIB | RATES), head, tail


def encode_times(ts_us: np.ndarray, iv_ms: np.ndarray, hour_us: int) -> bytes:
    d = np.diff(ts_us, prepend=hour_us)
    dd = np.diff(d, prepend=0)
    known = iv_ms >= 0
    ivd = np.zeros(len(iv_ms), np.int64)
    ivd[known] = np.diff(iv_ms[known], prepend=0)
    return pack(0, codec.encode(dd) + codec.encode(ivd, ~known))


def decode_times(blob, n: int, hour_us: int) -> tuple[np.ndarray, np.ndarray]:
    _f, body = unpack(blob)
    return _times(*codec.decode(body), n, hour_us)


def _times(vals: np.ndarray, nulls: np.ndarray, n: int, hour_us: int) -> tuple[np.ndarray, np.ndarray]:
    ts = hour_us + np.cumsum(np.cumsum(vals[:n]))
    ivd, iv_null = vals[n:], nulls[n:]
    iv = np.full(n, -1, np.int64)
    iv[~iv_null] = np.cumsum(ivd[~iv_null])
    return ts, iv


def decode_times_many(blobs: list, ns: list[int], hours_us: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """decode_times() of many hours (a week's 168 of a source: one call each cost more than their decoding):
    their varints decoded in one pass, each hour's running sums taken from the joined ones."""
    bodies = [unpack(blob)[1] for blob in blobs]
    vals, nulls = codec.decode(b"".join(bodies))
    counts = np.array(ns, np.int64)
    if len(vals) != 2 * int(counts.sum()):  # not n offsets then n intervals an hour: each on its own
        return [decode_times(blob, n, h) for blob, n, h in zip(blobs, ns, hours_us, strict=True)]
    # an hour's n offsets start at twice the polls before it (each an offset and an interval), its intervals n on
    offsets = np.arange(int(counts.sum())) + np.repeat(np.cumsum(counts) - counts, counts)
    intervals = offsets + np.repeat(counts, counts)
    dd, known = vals[offsets], ~nulls[intervals]
    ivd = np.where(known, vals[intervals], 0)
    ts = _running(_running(dd, counts), counts) + np.repeat(np.array(hours_us, np.int64), counts)
    iv = np.where(known, _running(ivd, counts), -1)
    ends = np.cumsum(counts).tolist()
    return [(ts[a - n:a], iv[a - n:a]) for a, n in zip(ends, ns, strict=True)]


def _running(v: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each part's own running sum (parts of counts[k] values in a row), exact in int64."""
    c = np.cumsum(v)
    before = np.cumsum(counts) - counts  # each part's first place
    base = np.where(before > 0, c[np.maximum(before - 1, 0)], 0) if len(c) else np.zeros(len(counts), np.int64)
    return c - np.repeat(base, counts)


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


# Rollup buckets: start offset (in bucket widths), count, sum, min, max, last, interval ms sum,
# and a counter's lowest and highest per-poll rate (store.rollups).
FIELDS = ("idx", "count", "sum", "min", "max", "last", "ms", "rmin", "rmax")
VALUE_ORDER = ("sum", "min", "max", "last")  # the columns after a row's head
RATE_LINE = ("idx", "rmin", "rmax")  # what a counter's rate line draws of its buckets (store.query)
GAUGE_LINE = ("idx", "count", "sum", "min", "max")  # ... and a gauge's line: extremes, and the mean where they meet


def encode_buckets(b: dict[str, np.ndarray]) -> bytes:
    ints = np.concatenate([b["idx"], b["count"], b["ms"]])
    tail, flag = rates_tail(b)
    if b["sum"].dtype.kind == "f":
        floats = np.concatenate([b[k] for k in ("sum", "min", "max", "last")]).astype("<f8")
        head = codec.encode(np.array([len(b["idx"])]))
        return pack_buckets(FLOAT | flag, head + codec.encode(ints) + floats.tobytes(), tail)
    if _regular(b):
        regular_head = np.array([len(b["idx"]), b["idx"][0], b["count"][0], b["ms"][0]])
        cols = np.concatenate([regular_head] + [b[k] for k in ("sum", "min", "max", "last")])
        return pack_buckets(REGULAR | flag, codec.encode(cols), tail)
    cols = np.concatenate([ints] + [b[k] for k in ("sum", "min", "max", "last")])
    return pack_buckets(INT_PLAIN | flag, codec.encode(cols), tail)


def rates_tail(b: dict[str, np.ndarray]) -> tuple[bytes, int]:
    """(rmin, rmax as float64, then their count as 4 bytes; RATES), or (b"", 0) for buckets without rates.

    After the head, in a part of its own (pack_buckets; at the end of one body before). Gauges' buckets
    (rollups.without_rates) and rows written before rates were kept have none (unpack_buckets); a counter's
    always has them, NaN where no poll of a bucket measured a rate.
    """
    if "rmin" not in b:
        return b"", 0
    rates = np.concatenate([b["rmin"], b["rmax"]])
    return rates.astype("<f8").tobytes() + len(b["idx"]).to_bytes(4, "little"), RATES


def _split_tail(kind: int, body: bytes) -> tuple[int, bytes, bytes | None]:
    """(kind without RATES, the body before the rates, the rates' tail: the floats, then their count), or None."""
    if not kind & RATES:
        return kind, body, None
    at = len(body) - 4 - 16 * int.from_bytes(body[-4:], "little")
    return kind & ~RATES, body[:at], body[at:]


def with_rates(b: dict[str, np.ndarray], rates: np.ndarray | None) -> dict[str, np.ndarray]:
    """b with its stored rates; without any, the rates the delta extremes suggest.

    Rows written before rates were kept (and gauges', whose rates are never read): a
    bucket's min or max delta over its mean interval, what charts drew then.
    """
    if rates is not None:
        return b | {"rmin": rates[0], "rmax": rates[1]}
    with np.errstate(divide="ignore", invalid="ignore"):
        per_s = np.where(b["ms"] > 0, b["count"] * 1000.0 / np.where(b["ms"] > 0, b["ms"], 1), np.nan)
    return b | {"rmin": b["min"] * per_s, "rmax": b["max"] * per_s}


def _regular(b: dict[str, np.ndarray]) -> bool:
    """Consecutive buckets with the same count and interval sum (the usual case): stored once."""
    n = len(b["idx"])
    return bool(n) and b["idx"][-1] - b["idx"][0] == n - 1 and bool(
        (b["count"] == b["count"][0]).all() and (b["ms"] == b["ms"][0]).all())


def decode_buckets(blob) -> dict[str, np.ndarray]:
    kind, head, tail = unpack_buckets(blob)
    return with_rates(_decode_main(kind, head), _rates(tail))


def _decode_main(kind: int, body: bytes) -> dict[str, np.ndarray]:
    if kind == REGULAR:
        vals, _ = codec.decode(body)
        return _regular_buckets(vals[4:].reshape(4, -1), vals[:4])
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


def decode_series_grouped(keys: list, blobs: list, ns: list[int]) -> dict:
    """decode_series_many for several keys (metrics) at once: rows in key order, each key's rows together
    -> {key: (values of present polls, presence)}. The integer rows of every key are decoded in one
    numpy pass (one call per metric costs more than its decoding); a key with a float row as before."""
    unpacked = [unpack(b) for b in blobs]
    cuts = [0] + [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]] + [len(keys)]
    spans = {keys[a]: (a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)}
    floats = {k for k, (a, b) in spans.items() if any(kind == FLOAT for kind, _ in unpacked[a:b])}
    rows = [i for i, k in enumerate(keys) if k not in floats]
    out = {k: decode_series_many(blobs[a:b], ns[a:b]) for k, (a, b) in spans.items() if k in floats}
    if not rows:
        return out
    counts = np.array([ns[i] for i in rows], np.int64)
    vals, nulls = codec.decode(b"".join(unpacked[i][1] for i in rows))
    if len(vals) != int(counts.sum()):
        return {k: decode_series_many(blobs[a:b], ns[a:b]) for k, (a, b) in spans.items()}
    present = ~nulls
    deltas = np.array([unpacked[i][0] == INT_DELTA for i in rows])
    starts = np.cumsum(counts) - counts
    if deltas.any():  # each row's own running sum, as decode_series_many takes it
        c = np.cumsum(np.where(present, vals, 0))
        base = np.where(starts > 0, c[np.maximum(starts - 1, 0)], 0)
        vals = np.where(np.repeat(deltas, counts), c - np.repeat(base, counts), vals)
    ends = (starts + counts).tolist()
    place = {i: j for j, i in enumerate(rows)}
    for k, (a, b) in spans.items():
        if k not in floats:
            lo, hi = int(starts[place[a]]), ends[place[b - 1]]
            out[k] = (vals[lo:hi][present[lo:hi]], present[lo:hi])
    return {k: out[k] for k in spans}  # in row order


def decode_series_window(keys: list, blobs: list, ns: list[int], spans: list) -> dict:
    """decode_series_grouped() of each row's polls spans[i] = [a, b) only: {key: (values of its present polls
    there, presence over them)}. A counter's row holds one code a poll (0 for none), so only the codes of those
    polls are put together (codec.decode_at); where a row is not (an integer gauge's differences add up from
    the hour's first poll, a float row), every row is decoded whole and cut to its span."""
    unpacked = [unpack(b) for b in blobs]
    counts = np.array(ns, np.int64)
    if all(kind == INT_PLAIN for kind, _ in unpacked):
        joined = b"".join(body for _k, body in unpacked)
        ends = np.flatnonzero(np.frombuffer(joined, np.uint8) < 0x80)
        if len(ends) == int(counts.sum()):
            first = np.cumsum(counts) - counts
            lo, hi = np.array([a for a, _b in spans], np.int64), np.array([b for _a, b in spans], np.int64)
            vals, nulls = codec.decode_at(joined, _spans(first + lo, first + hi), ends)
            return _by_key(keys, vals, ~nulls, (hi - lo).tolist())
    whole = decode_series_grouped(keys, blobs, ns)
    inside = np.concatenate([(np.arange(n) >= a) & (np.arange(n) < b) for n, (a, b) in zip(ns, spans, strict=True)])
    out, at = {}, 0
    for key, (vals, present) in whole.items():  # in row order, each key's rows together
        mine = inside[at:at + len(present)]
        out[key] = (vals[mine[present]], present[mine])
        at += len(present)
    return out


def _by_key(keys: list, vals: np.ndarray, present: np.ndarray, sizes: list[int]) -> dict:
    """{key: (values of its present polls, presence)} of rows' polls joined in row order (sizes: a row's)."""
    out, at = {}, 0
    cuts = [0] + [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]] + [len(keys)]
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        size = sum(sizes[a:b])
        mine = present[at:at + size]
        out[keys[a]] = (vals[at:at + size][mine], mine)
        at += size
    return out


def _regular_buckets(cols: np.ndarray, head: np.ndarray) -> dict[str, np.ndarray]:
    n, first, count, ms = (int(x) for x in head)
    out = {"idx": np.arange(first, first + n, dtype=np.int64), "count": np.full(n, count, np.int64),
           "ms": np.full(n, ms, np.int64)}
    return out | dict(zip(("sum", "min", "max", "last"), cols, strict=True))


def decode_buckets_many(blobs: list, offsets: list[int]) -> dict[str, np.ndarray]:
    """Buckets of several rows, each re-numbered by its offset; regular rows in one numpy pass."""
    return decode_buckets_grouped({0: list(zip(blobs, offsets, strict=True))}).get(0, rollups.empty())


def decode_buckets_grouped(groups: dict, fields: tuple[str, ...] = FIELDS) -> dict:
    """decode_buckets_many for several keys (metrics) at once: {key: [(blob, offset), ...]} -> {key: buckets}.

    The integer rows of every key are decoded in one numpy pass (one pass per
    row or per key costs more in numpy calls than in decoding). A key with a
    float row, or whose rows overlap, is decoded as decode_buckets_many did.
    fields: the columns wanted ("idx" among them): a total's idx, sum and ms
    skip building the others (the rates above all, stored per row). A key with a
    HEAD_CUT row that _rate_lines() cannot read is left out: its caller reads it whole.
    A gauge line's float rows are read as _gauge_lines() reads them, the rest as before.
    """
    lines = _rate_lines(groups) if fields == RATE_LINE else _gauge_lines(groups) if fields == GAUGE_LINE else {}
    rising = _increasing_each(lines)
    lines = {key: b for key, b in lines.items() if key in rising}
    rated = "rmin" in fields or "rmax" in fields
    unpacked = {key: [(unpack_buckets(blob, rated), o) for blob, o in rows] for key, rows in groups.items()
                if key not in lines and not any(blob[0] & HEAD_CUT for blob, _o in rows)}  # cut: left out
    kinds = {key: {kind for (kind, _b, _r), _o in rows} for key, rows in unpacked.items()}
    out = _integer_rows({key: rows for key, rows in unpacked.items() if kinds[key] <= INTEGER_KINDS}, fields)
    out |= _float_rows({key: rows for key, rows in unpacked.items() if kinds[key] <= {FLOAT}}, fields)
    rising = _increasing_each(out)
    for key, rows in unpacked.items():
        if key not in rising:
            whole = _row_by_row(rows)
            out[key] = whole if fields == FIELDS else {name: whole[name] for name in fields}
    return lines | out


HEAD_PREFIX = 20  # a head's bytes that hold its first two codes (n, the first index: at most 10 bytes each)
LINE_ROW = REGULAR | RATES | SPLIT  # a counter's usual rollup row: consecutive buckets, rates in their own part
# A counter's row of uneven buckets (a poll missing, late, or of unknown interval: the first hour of its data): its
# head is 7 columns of n codes (INT_PLAIN), the indexes first; never cut (read_rollups.SELECT_LINES cuts LINE_ROW).
PLAIN_LINE = INT_PLAIN | RATES | SPLIT
# A LINE_ROW as a rate line's read leaves it (read_rollups.SELECT_LINES): its head cut to its first HEAD_PREFIX
# bytes (its length as stored), then its rates. Only _rate_lines() reads it.
HEAD_CUT = 128


def _rate_lines(groups: dict) -> dict:
    """RATE_LINE buckets of the keys whose rows are all LINE_ROW or PLAIN_LINE ({key: [(blob, offset), ...]}): a
    LINE_ROW's indexes from its head's first two codes (its n and first index), a PLAIN_LINE's from its head's first
    n codes, the rates from the tails. A rate line reads no sum, min, max or last, most of a row's bytes: they are
    neither copied, inflated nor scanned for varints. A key whose usual rows came cut and one uneven row whole (a
    week's first hour) is read here too: the general path cannot read its cut rows, which were read again whole.
    The rows cut alike (_alike: most of a week's busy counters) are read as one matrix, the others row by row."""
    keys = [key for key, rows in groups.items()
            if rows and all(blob[0] & ~(ZLIB | TAIL_ZLIB | HEAD_CUT) in (LINE_ROW, PLAIN_LINE) for blob, _o in rows)]
    if not keys:
        return {}
    blobs = [blob for key in keys for blob, _o in groups[key]]
    alike, size = _alike(blobs)
    others = np.setdiff1d(np.arange(len(blobs)), alike)
    found = _two_ways(blobs, alike, lambda rows: _matrix_line(size, rows), others, _row_lines)
    if found is None:
        return {}  # not the layout this reads: the general path decides
    n = found[0]
    kstart = np.cumsum(n) - n
    cols = dict(zip(RATE_LINE, found[1:], strict=True))
    offsets = np.fromiter((o for key in keys for _blob, o in groups[key]), np.int64, len(blobs))
    cols["idx"] += np.repeat(offsets, n)
    owners = [key for key in keys for _row in groups[key]]
    cuts = [0] + [i for i in range(1, len(owners)) if owners[i] != owners[i - 1]] + [len(owners)]
    edges = np.append(kstart, int(n.sum())).tolist()
    return {owners[a]: {name: cols[name][edges[a]:edges[b]] for name in RATE_LINE}
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)}


def _two_ways(blobs: list[bytes], alike: np.ndarray, as_matrix: Callable, others: np.ndarray,
              each: Callable) -> tuple[np.ndarray, ...] | None:
    """The rows at `alike` read as one matrix, those at `others` one by one, put back in row order (_in_order)."""
    parts = []
    if len(alike):
        parts.append((as_matrix([blobs[i] for i in alike.tolist()]), alike))
    if len(others):
        parts.append((each([blobs[i] for i in others.tolist()]), others))
    return _in_order(parts)


def _in_order(parts: list[tuple[tuple[np.ndarray, ...] | None, np.ndarray]]) -> tuple[np.ndarray, ...] | None:
    """(n a row, then each column) of every row of parts each (n a row, its columns) of the rows at its places, in
    row order (_in_row_order); None where a part is None (its rows not the layout read)."""
    read = [part for part, _rows in parts if part is not None]
    if len(read) < len(parts):
        return None
    return read[0] if len(read) == 1 else _in_row_order(read, [rows for _part, rows in parts])


def _in_row_order(parts: list[tuple[np.ndarray, ...]], places: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """(n a row, then each column: idx, ...) of every row, in row order, of parts each (n a row, its columns) of the
    rows at its places (ascending): each run of one part's rows taken at once."""
    count = sum(len(p) for p in places)
    owner, n = np.empty(count, np.int64), np.empty(count, np.int64)
    for k, (part, rows) in enumerate(zip(parts, places, strict=True)):
        owner[rows], n[rows] = k, part[0]
    bounds = [0, *(np.flatnonzero(np.diff(owner)) + 1).tolist(), count]  # where a run of one part's rows begins
    ends = [[0, *np.cumsum(part[0]).tolist()] for part in parts]  # a part's buckets before each of its rows
    seen, runs = [0] * len(parts), []
    for lo, hi, k in zip(bounds[:-1], bounds[1:], owner[bounds[:-1]].tolist(), strict=True):
        runs.append((k, ends[k][seen[k]], ends[k][seen[k] + hi - lo]))
        seen[k] += hi - lo
    return (n, *(np.concatenate([parts[k][c][a:b] for k, a, b in runs]) for c in range(1, len(parts[0]))))


def _alike(blobs: list) -> tuple[np.ndarray, int]:
    """The rows (their places) cut alike: HEAD_CUT LINE_ROWs of neither part zlib'd and of the commonest size among
    them (a whole hour's: 60 buckets), and that size."""
    flags = np.fromiter((blob[0] for blob in blobs), np.int64, len(blobs))
    sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
    cut = np.flatnonzero(flags == HEAD_CUT | LINE_ROW)
    if not len(cut):
        return cut, 0
    size = int(np.bincount(sizes[cut]).argmax())
    return cut[sizes[cut] == size], size


def _matrix_line(size: int, blobs: list) -> tuple[np.ndarray, ...] | None:
    """(n a row, idx, rmin, rmax) of rows cut alike (_alike), as one matrix: a row is its flags, its head's length,
    HEAD_PREFIX bytes of it, then n rmins, n rmaxes and n (4 bytes); None where a row is not that."""
    n, tail = divmod(size - 5 - HEAD_PREFIX - 4, 16)
    rows = np.frombuffer(b"".join(blobs), np.uint8).reshape(len(blobs), size)
    counts = rows[:, size - 4:].copy().view("<u4").ravel()
    if tail or n <= 0 or (counts != n).any():
        return None
    heads = rows[:, 5:5 + HEAD_PREFIX]
    n_first = _first_codes(heads.ravel(), np.full(len(blobs), HEAD_PREFIX, np.int64))
    if n_first is None or (n_first[0] != n).any():
        return None
    rates = rows[:, 5 + HEAD_PREFIX:size - 4].copy().view("<f8")  # a row's rmins, then its rmaxes
    idx = (n_first[1][:, None] + np.arange(n)).ravel()
    return np.full(len(blobs), n, np.int64), idx, rates[:, :n].ravel(), rates[:, n:].ravel()


def _row_lines(blobs: list) -> tuple[np.ndarray, ...] | None:
    """(n a row, idx, rmin, rmax) of rows of any layout _rate_lines reads, row by row; None where one is not."""
    heads, tails, plain = [], [], []
    for blob in blobs:  # parts kept as bytes: a memoryview a row would be 6,000 objects the cyclic GC tracks
        at = 5 + HEAD_PREFIX if blob[0] & HEAD_CUT else 5 + int.from_bytes(blob[1:5], "little")
        whole = blob[0] & ~(ZLIB | TAIL_ZLIB) == PLAIN_LINE  # its indexes are a column: the whole head
        heads.append(_head(blob, at, None if whole else HEAD_PREFIX))
        tails.append(zlib.decompress(blob[at:]) if blob[0] & TAIL_ZLIB else bytes(blob[at:]))
        plain.append(whole)
    n = np.array([int.from_bytes(t[-4:], "little") for t in tails], np.int64)  # rate pairs a row holds
    idx = _line_indexes(heads, np.array(plain, bool), n)
    if idx is None:
        return None
    place = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)  # a bucket's place in its row
    kept = np.frombuffer(b"".join(t[:-4] for t in tails), "<f8")
    rmin = np.repeat(2 * (np.cumsum(n) - n), n) + place  # a row's rmin, then its rmax
    return n, idx, kept[rmin], kept[rmin + np.repeat(n, n)]


def _head(blob: bytes, at: int, prefix: int | None) -> bytes:
    """A split row's head (its bytes 5 to `at`), inflated where it is zlib'd: its first `prefix` bytes at least
    (None: all of it)."""
    if blob[0] & ZLIB:
        return zlib.decompress(blob[5:at]) if prefix is None else zlib.decompressobj().decompress(blob[5:at], prefix)
    return bytes(blob[5:at if prefix is None else min(at, 5 + prefix)])


def _line_indexes(heads: list, plain: np.ndarray, n: np.ndarray) -> np.ndarray | None:
    """Every row's bucket indexes before its offset, in row order (n a row, as its tail holds rates): a LINE_ROW's
    from its head's first two codes (n, the first index), a PLAIN_LINE's (plain) its head's first n codes, the
    indexes column; None where a head is not that layout (its n is not the tail's, a plain one not 7 x n codes)."""
    usual = np.flatnonzero(~plain).tolist()
    usual_heads = [heads[i] for i in usual]
    n_first = _first_codes(np.frombuffer(b"".join(usual_heads), np.uint8),
                           np.fromiter(map(len, usual_heads), np.int64, len(usual))) if usual else (
        np.zeros(0, np.int64),) * 2
    if n_first is None or (n_first[0] != n[~plain]).any():
        return None
    first = np.zeros(len(heads), np.int64)
    first[~plain] = n_first[1]
    idx = np.repeat(first, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    if plain.any():
        found = _index_columns([heads[i] for i in np.flatnonzero(plain).tolist()], n[plain])
        if found is None:
            return None
        idx[np.repeat(plain, n)] = found
    return idx


def _index_columns(heads: list, n: np.ndarray) -> np.ndarray | None:
    """The first n[k] codes of each INT_PLAIN head (its indexes column), joined, decoded in one pass; None where a
    head does not hold 7 x n[k] codes or an index is NULL."""
    joined = b"".join(heads)
    ends = np.flatnonzero(np.frombuffer(joined, np.uint8) < 0x80)
    counts = np.diff(np.searchsorted(ends, np.cumsum([0] + [len(h) for h in heads])))  # codes a head holds
    if (counts != 7 * n).any():
        return None
    starts = np.cumsum(counts) - counts
    vals, nulls = codec.decode_at(joined, _spans(starts, starts + n), ends)
    return None if nulls.any() else vals


def _first_codes(b: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The first two codes' values of each head (b: the heads joined, a head `sizes` bytes: at least those two
    codes), or None where one has fewer."""
    ends = np.flatnonzero(b < 0x80)
    start = np.cumsum(sizes) - sizes
    k = np.searchsorted(ends, start)  # each head's first code ends at ends[k], its second at ends[k + 1]
    if (k + 1 >= len(ends)).any() or (ends[np.minimum(k + 1, len(ends) - 1)] >= start + sizes).any():
        return None
    vals, nulls = codec.decode_spans(b, np.concatenate([start, ends[k] + 1]), np.concatenate([ends[k], ends[k + 1]]))
    if nulls.any():
        return None
    return vals[:len(sizes)], vals[len(sizes):]


INTEGER_KINDS = frozenset((REGULAR, INT_PLAIN))


def _increasing_each(out: dict) -> set:
    """The keys whose buckets' indexes rise (none of them overlap), in one numpy pass over every key's: a total
    of 700 counters asked 700 times, one small numpy call each."""
    keys = list(out)
    if not keys:
        return set()
    idx = [out[key]["idx"] for key in keys]
    sizes = np.fromiter(map(len, idx), np.int64, len(idx))
    joined = np.concatenate(idx)
    falls = np.zeros(len(joined), bool)
    falls[1:] = joined[1:] <= joined[:-1]
    falls[(np.cumsum(sizes) - sizes)[sizes > 0]] = False  # a key's first bucket follows another key's
    fallen = set(np.repeat(np.arange(len(keys)), sizes)[falls].tolist())
    return {key for k, key in enumerate(keys) if k not in fallen}


def _rates(tail: bytes | None) -> np.ndarray | None:
    """The (2, n) rmin and rmax of an unpack_buckets() tail."""
    return None if tail is None else np.frombuffer(tail[:-4], "<f8").reshape(2, int.from_bytes(tail[-4:], "little"))


def _row_by_row(rows: list) -> dict[str, np.ndarray]:
    """Regular rows together, then every other row on its own, a later part winning an index."""
    regular = [r for r in rows if r[0][0] == REGULAR]
    parts = list(_integer_rows({0: regular}).values())
    parts += [rollups.shift(with_rates(_decode_main(kind, body), _rates(tail)), o)
              for (kind, body, tail), o in rows if kind != REGULAR]
    return rollups.concat(parts)


def _integer_rows(groups: dict, fields: tuple[str, ...] = FIELDS) -> dict:
    """Buckets per key of REGULAR and INT_PLAIN rows ({key: [((kind, body, rates), offset), ...]}), in row order.

    A REGULAR body is (n, first index, count, ms, then n sums, mins, maxes,
    lasts); an INT_PLAIN one is 7 columns of n (idx, count, ms, sum, min,
    max, last). Every row's columns are gathered from one decoded array.
    """
    rows = [(key, kind, body, o, rates) for key, rs in groups.items() for (kind, body, rates), o in rs]
    if not rows:
        return {}
    joined = b"".join(r[2] for r in rows)
    ends = np.flatnonzero(np.frombuffer(joined, np.uint8) < 0x80)
    counts = np.diff(np.searchsorted(ends, np.cumsum([0] + [len(r[2]) for r in rows])))  # varints per row
    starts = np.cumsum(counts) - counts
    plain = np.array([r[1] == INT_PLAIN for r in rows])
    rated = "rmin" in fields or "rmax" in fields
    stand_in = rated and any(r[4] is None for r in rows)  # a row without rates: its stand-ins need every column
    # The value columns read (sum, min, max, last, in a row's order): a total's sums are the first of the four,
    # a rate line reads none: only the codes up to them are decoded (REGULAR: n, first, count, ms, then n a column).
    columns = 4 if stand_in else max((k + 1 for k, name in enumerate(VALUE_ORDER) if name in fields), default=0)
    if columns == 4:
        vals, _ = codec.decode(joined)
    else:
        vals = _decoded_at(joined, ends, starts, np.where(plain, (3 + columns) * (counts // 7),
                                                          4 + columns * ((counts - 4) // 4)))
    head = vals[np.minimum(starts, len(vals) - 1)] if len(vals) else np.zeros(len(rows), np.int64)
    n = np.where(plain, counts // 7, head)
    bucket_start = np.cumsum(n) - n
    p = np.arange(int(n.sum())) - np.repeat(bucket_start, n)  # a bucket's place in its row
    at, size, flat = np.repeat(starts, n), np.repeat(n, n), np.repeat(plain, n)
    at_sum = np.repeat(np.where(plain, starts + 3 * n, starts + 4), n) + p
    cols = {name: vals[at_sum + k * size] for k, name in enumerate(("sum", "min", "max", "last"))
            if stand_in or name in fields}
    at_col = at + p  # INT_PLAIN: idx, then count and ms a column (size) further
    cols["idx"] = np.where(flat, vals[at_col], vals[at + 1] + p) + np.repeat(np.array([r[3] for r in rows]), n)
    if stand_in or "count" in fields:
        cols["count"] = np.where(flat, vals[at_col + size], vals[at + 2])
    cols["ms"] = np.where(flat, vals[at_col + 2 * size], vals[at + 3])
    if rated:
        cols |= _joined_rates(cols, [r[4] for r in rows], n)
    # each key's buckets: from its first row's first bucket to its last row's last
    keys = [r[0] for r in rows]
    cuts = [0] + [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]] + [len(keys)]
    edges = np.append(bucket_start, int(n.sum())).tolist()
    edges = [edges[c] for c in cuts]
    return {keys[a]: {name: cols[name][lo:hi] for name in fields}
            for a, lo, hi in zip(cuts[:-1], edges[:-1], edges[1:], strict=True)}


def _decoded_at(joined: bytes, ends: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """codec.decode(joined)'s values at each row's first `lengths` codes (the row's codes begin at starts), 0
    elsewhere: a rate line reads no sum, min, max or last, most of a row's bytes."""
    which = _spans(starts, np.minimum(starts + lengths, len(ends)))
    vals = np.zeros(len(ends), np.int64)
    vals[which] = codec.decode_at(joined, which, ends)[0]
    return vals


MATRIX_ROWS = 32  # _gauge_lines' rows read at least (a day of a line at 1m holds 24 a metric)


def _gauge_lines(groups: dict) -> dict:
    """GAUGE_LINE buckets of the keys whose rows are all FLOAT rows as stored (no part zlib'd, no rates: a float
    gauge's, a week of a host's lines): those of the commonest size (a whole hour's) as one matrix (_float_matrix),
    the others as _float_rows() reads them; a key without buckets left out, as there."""
    keys = [key for key, rows in groups.items() if rows and all(blob[0] == FLOAT for blob, _o in rows)]
    if sum(len(groups[key]) for key in keys) < MATRIX_ROWS:
        return {}  # a few rows (a ranking's hours): the general path costs less than the matrix's setup
    blobs = [blob for key in keys for blob, _o in groups[key]]
    sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
    size = int(np.bincount(sizes).argmax())
    alike, others = np.flatnonzero(sizes == size), np.flatnonzero(sizes != size)
    found = _two_ways(blobs, alike, lambda rows: _float_matrix(size, rows), others, _float_each)
    if found is None:
        return {}  # not the layout this reads: the general path decides
    n = found[0]
    cols = dict(zip(GAUGE_LINE, found[1:], strict=True))
    cols["idx"] = cols["idx"] + np.repeat(np.fromiter((o for key in keys for _b, o in groups[key]), np.int64,
                                                      len(blobs)), n)
    owners = [key for key in keys for _row in groups[key]]
    cuts = [0] + [i for i in range(1, len(owners)) if owners[i] != owners[i - 1]] + [len(owners)]
    edges = np.append(np.cumsum(n) - n, int(n.sum())).tolist()
    return {owners[a]: {name: cols[name][edges[a]:edges[b]] for name in GAUGE_LINE}
            for a, b in zip(cuts[:-1], cuts[1:], strict=True) if edges[b] > edges[a]}


def _float_matrix(size: int, blobs: list) -> tuple[np.ndarray, ...] | None:
    """(n a row, then GAUGE_LINE's columns) of FLOAT rows of one size, as one matrix: a row is its flags, n (one
    byte), 3 n varints (idx, count, ms) then 4 n float64 (sum, min, max, last); None where a row is not that, or
    an index or count takes more than a byte (_float_rows then reads them)."""
    rows = np.frombuffer(b"".join(blobs), np.uint8).reshape(len(blobs), size)
    code = int(rows[0, 1])
    n = code >> 1  # a one-byte code: zigzag(n) + 1 = 2n + 1
    floats_at = size - 32 * n
    if code >= 0x80 or not code & 1 or n == 0 or floats_at < 2 + 3 * n or (rows[:, 1] != code).any():
        return None
    region = rows[:, 2:floats_at] < 0x80  # each code's last byte: 3 n of them, the last byte one
    if not region[:, :2 * n].all() or not region[:, -1].all() or (region.sum(axis=1) != 3 * n).any():
        return None
    reals = rows[:, floats_at:].copy().view("<f8")  # a row's sums, mins, maxes, lasts
    ints = codec.one_byte_values(rows[:, 2:2 + 2 * n].ravel()).reshape(len(blobs), 2 * n)
    return (np.full(len(blobs), n, np.int64), ints[:, :n].ravel(), ints[:, n:].ravel(),
            *(reals[:, k * n:(k + 1) * n].ravel() for k in range(3)))


def _float_each(blobs: list) -> tuple[np.ndarray, ...] | None:
    """(n a row, then GAUGE_LINE's columns) of FLOAT rows (as stored: flags, then the body), as _float_rows() reads
    them; None where it reads none of them."""
    found = _float_rows({k: [((FLOAT, blob[1:], None), 0)] for k, blob in enumerate(blobs)}, GAUGE_LINE)
    if not found and blobs:
        return None
    each = [found.get(k, {name: np.empty(0, np.float64 if name in VALUE_ORDER else np.int64) for name in GAUGE_LINE})
            for k in range(len(blobs))]
    return (np.array([len(b["idx"]) for b in each], np.int64),
            *(np.concatenate([b[name] for b in each]) for name in GAUGE_LINE))


def _float_rows(groups: dict, fields: tuple[str, ...] = FIELDS) -> dict:
    """Buckets per key of FLOAT rows ({key: [((kind, body, rates), offset), ...]}), in row order.

    A FLOAT body is n, then 3n varints (idx, count, ms), then 4n float64 (sum, min, max, last).
    Every row's varints are decoded from one array and its floats read from one buffer, as
    _decode_main reads them a row at a time (the same values, bit for bit). A key whose
    buckets would be empty is left out (the row-by-row path gives its empty buckets' types).
    """
    rows = [(key, body, o, rates) for key, rs in groups.items() for (_kind, body, rates), o in rs]
    if not rows:
        return {}
    # A row's bytes are cut in Python (a slice a row): gathering them by position from the joined rows built
    # index arrays of every byte, 8 MB of rows for a week of host lines.
    bodies = [r[1] for r in rows]
    if not all(body and body[0] < 0x80 and body[0] & 1 for body in bodies):
        return {}  # an n of more than a byte (or none): the row-by-row path decides
    n = np.array([body[0] >> 1 for body in bodies], np.int64)  # a one-byte code: zigzag(n) + 1 = 2n + 1
    floats_at = [len(body) - 32 * k for body, k in zip(bodies, n.tolist(), strict=True)]  # the last 32n bytes
    if min(floats_at) < 1:
        return {}
    varints = [body[1:at] for body, at in zip(bodies, floats_at, strict=True)]
    region = b"".join(varints)
    lengths = np.array([len(v) for v in varints], np.int64)
    ends = np.flatnonzero(np.frombuffer(region, np.uint8) < 0x80)
    counts = np.diff(np.searchsorted(ends, np.append(0, np.cumsum(lengths))))
    if (counts != 3 * n).any() or any(v and v[-1] >= 0x80 for v in varints):
        return {}  # not 3n varints between n and the floats: not the layout this reads
    bucket_start = np.cumsum(n) - n
    # The intervals (a row's last n varints, 3 bytes each) only where asked, or the rates made of them: a gauge's
    # line (GAUGE_LINE) reads a row's idx and count codes, 0 stands in for the rest.
    timed = "ms" in fields or "rmin" in fields or "rmax" in fields
    reals = np.frombuffer(b"".join(body[at:] for body, at in zip(bodies, floats_at, strict=True)), "<f8")
    p = np.arange(int(n.sum())) - np.repeat(bucket_start, n)  # a bucket's place in its row
    size, at_int, at_real = np.repeat(n, n), np.repeat(3 * bucket_start, n) + p, np.repeat(4 * bucket_start, n) + p
    if timed:
        ints = codec.decode(region)[0]
        cols = {"idx": ints[at_int], "count": ints[at_int + size], "ms": ints[at_int + 2 * size]}
    else:
        cols = _index_count(region, ends, lengths, n, p)
    cols["idx"] = cols["idx"] + np.repeat(np.array([r[2] for r in rows], np.int64), n)
    cols |= {name: reals[at_real + k * size] for k, name in enumerate(VALUE_ORDER) if name in fields or timed}
    if "rmin" in fields or "rmax" in fields:
        cols |= _joined_rates(cols, [r[3] for r in rows], n)
    keys = [r[0] for r in rows]
    cuts = [0] + [i for i in range(1, len(keys)) if keys[i] != keys[i - 1]] + [len(keys)]
    edges = np.append(bucket_start, int(n.sum())).tolist()
    edges = [edges[c] for c in cuts]
    return {keys[a]: {name: cols[name][lo:hi] for name in fields}
            for a, lo, hi in zip(cuts[:-1], edges[:-1], edges[1:], strict=True) if hi > lo}


def _index_count(region: bytes, ends: np.ndarray, lengths: np.ndarray, n: np.ndarray, p: np.ndarray) -> dict:
    """idx and count of FLOAT rows' varints (`region`: each row's 3n codes, `lengths` bytes, `ends` of every code;
    p: a bucket's place in its row), a row's first 2n codes. Where those are a byte each (a bucket's place in its
    hour and its polls, under 64: a gauge line's rows), they are the row's first 2n bytes; else they are gathered
    by their ends, the intervals left at 0 (a gauge line draws none)."""
    bucket_start = np.cumsum(n) - n
    row_at = np.cumsum(lengths) - lengths  # each row's first byte
    has = n > 0
    if (ends[(3 * bucket_start + 2 * n - 1)[has]] == (row_at + 2 * n - 1)[has]).all():  # its 2n-th code ends there
        b = np.frombuffer(region, np.uint8)
        at = np.repeat(row_at, n) + p
        return {"idx": codec.one_byte_values(b[at]), "count": codec.one_byte_values(b[at + np.repeat(n, n)])}
    ints = _decoded_at(region, ends, 3 * bucket_start, 2 * n)
    at_int, size = np.repeat(3 * bucket_start, n) + p, np.repeat(n, n)
    return {"idx": ints[at_int], "count": ints[at_int + size], "ms": ints[at_int + 2 * size]}


def _spans(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The positions in [lo, hi) of each span, in order (spans in order, none overlapping)."""
    lengths = np.maximum(hi - lo, 0)
    before = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(lo - before, lengths)


def _joined_rates(cols: dict[str, np.ndarray], tails: list, n: np.ndarray) -> dict[str, np.ndarray]:
    """rmin and rmax of the joined rows: each row's stored rates (unpack_buckets() tails, read from their joined
    bytes), or with_rates' stand-in where it has none."""
    if all(t is None for t in tails):
        return with_rates(cols, None)
    has_row = np.array([t is not None for t in tails])
    stored = np.array([int.from_bytes(t[-4:], "little") if t is not None else 0 for t in tails], np.int64)
    if (stored[has_row] != n[has_row]).any():  # not one rate pair per bucket: as the rows' arrays join
        return _joined_arrays(cols, [_rates(t) for t in tails], n)
    kept = np.frombuffer(b"".join(t[:-4] for t in tails if t is not None), "<f8")
    place = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)  # a bucket's place in its row
    rmin = np.repeat(2 * (np.cumsum(stored) - stored), n) + place  # a row's rmin, then its rmax
    has = np.repeat(has_row, n)
    if has.all():
        return {"rmin": kept[rmin], "rmax": kept[rmin + np.repeat(n, n)]}
    if not len(kept):  # no bucket has a stored rate: nothing to gather
        return _joined_arrays(cols, [_rates(t) for t in tails], n)
    rmin = np.where(has, rmin, 0)
    rmax = np.where(has, rmin + np.repeat(n, n), 0)
    stand_in = with_rates(cols, None)
    return {k: np.where(has, kept[at], stand_in[k]) for k, at in (("rmin", rmin), ("rmax", rmax))}


def _joined_arrays(cols: dict[str, np.ndarray], stored: list, n: np.ndarray) -> dict[str, np.ndarray]:
    """_joined_rates() of the rows' rates as (2, k) arrays (None: none stored)."""
    parts = [r if r is not None else np.full((2, int(k)), np.nan) for r, k in zip(stored, n, strict=True)]
    kept = np.concatenate(parts, axis=1)
    has = np.repeat(np.array([r is not None for r in stored]), n)
    if has.all():
        return {"rmin": kept[0], "rmax": kept[1]}
    stand_in = with_rates(cols, None)
    return {k: np.where(has, kept[i], stand_in[k]) for i, k in enumerate(("rmin", "rmax"))}


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
    tails = [rates_tail(b) for b in buckets]
    if all(_regular(b) for b in buckets):
        keys: tuple[str, ...] = ("sum", "min", "max", "last")
        heads = [np.array([len(b["idx"]), b["idx"][0], b["count"][0], b["ms"][0]]) for b in buckets]
        cols = np.stack([np.concatenate([h] + [b[k] for k in keys]) for h, b in zip(heads, buckets, strict=True)])
        return _split_pack(cols, None, np.full(len(buckets), REGULAR), tails)
    keys = ("idx", "count", "ms", "sum", "min", "max", "last")
    cols = np.stack([np.concatenate([b[k] for k in keys]) for b in buckets])
    return _split_pack(cols, None, np.full(len(buckets), INT_PLAIN), tails)


def _split_pack(matrix: np.ndarray, nulls: np.ndarray | None, kinds: np.ndarray,
                tails: list[tuple[bytes, int]] | None = None) -> list[bytes]:
    """Each row's varints packed: as rollup rows with their tails (rates_tail) where given, else as pack() does."""
    data, lengths = codec.varints(codec.codes(matrix, nulls))
    offs = np.r_[0, np.cumsum(lengths.reshape(matrix.shape).sum(axis=1))].tolist()
    if tails is None:
        return [pack(int(kinds[i]), data[offs[i]:offs[i + 1]]) for i in range(len(matrix))]
    return [pack_buckets(int(kinds[i]) | tails[i][1], data[offs[i]:offs[i + 1]], tails[i][0])
            for i in range(len(matrix))]
