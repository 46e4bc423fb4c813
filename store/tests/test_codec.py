"""The integer codec and the block/rollup encodings decode to exactly what was encoded."""

import numpy as np

from store import blocks, codec, rollups

RNG = np.random.default_rng(7)


def test_it_round_trips_varints_with_nulls_and_extremes():
    values = np.array([0, 1, -1, 63, -64, 64, 127, 128, 2**62, -(2**63) + 1, 2**63 - 1, 5 * 10**15], np.int64)
    nulls = np.zeros(len(values), bool)
    nulls[3] = True
    got, got_nulls = codec.decode(codec.encode(values, nulls))
    assert (got_nulls == nulls).all() and (got[~nulls] == values[~nulls]).all()
    assert len(codec.encode(np.zeros(100, np.int64))) == 100  # a zero is one byte


def test_it_decodes_codes_of_every_length_among_others():
    assert codec.decode(b"\xd9\x04\x00\x03")[0][[0, 2]].tolist() == [300, 1]  # zigzag(300) + 1 = 601, zigzag(1) + 1 = 3
    assert codec.decode(b"\xd9\x04\x00\x03")[1].tolist() == [False, True, False]
    for _ in range(50):
        n = int(RNG.integers(1, 400))
        bits = RNG.integers(0, 63, n)  # 1 to 10 bytes a code, mixed
        values = (RNG.integers(0, 2**62, n) >> (62 - bits)) * RNG.choice([-1, 1], n)
        nulls = RNG.random(n) < 0.1
        got, got_nulls = codec.decode(codec.encode(values, nulls))
        assert (got_nulls == nulls).all() and (got[~nulls] == values[~nulls]).all()


def buckets(n: int, first: int, regular: bool = True, rates: bool = True) -> dict:
    rmin = RNG.random(n) * 1e6
    if rates and n > 2:
        rmin[1] = np.nan  # a bucket whose every delta spans an outage
    return {
        "idx": np.arange(first, first + n), "count": np.full(n, 6) if regular else RNG.integers(1, 7, n),
        "ms": np.full(n, 60_000), "sum": RNG.integers(-5, 10**12, n), "min": RNG.integers(0, 9, n),
        "max": RNG.integers(0, 10**15, n), "last": RNG.integers(0, 9, n),
    } | ({"rmin": rmin, "rmax": rmin + RNG.random(n)} if rates else {})


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") for k in b)


def stand_in(b: dict) -> dict:
    """What a row without rates (written before they were kept, or a gauge's) decodes to, by hand."""
    per_s = np.array([c * 1000 / ms for c, ms in zip(b["count"].tolist(), b["ms"].tolist(), strict=True)])
    return b | {"rmin": b["min"] * per_s, "rmax": b["max"] * per_s}


def test_it_decodes_many_rollup_rows_of_every_kind_at_once():
    floats = buckets(3, 10) | {"sum": np.array([0.5, 1.5, np.inf])}
    parts = [buckets(60, 0), buckets(60, 0, regular=False), buckets(17, 40), buckets(1, 5), floats]
    blobs = [blocks.encode_buckets(b) for b in parts]
    offsets = [0, 1000, 2000, 3000, 4000]
    got = blocks.decode_buckets_many(blobs, offsets)
    expected = rollups.concat([rollups.shift(b, o) for b, o in zip(parts, offsets, strict=True)])
    assert same(got, expected)
    twice = blocks.encode_buckets_matrix(parts[2:3] * 2)
    assert same(blocks.decode_buckets(twice[1]), parts[2])


def test_a_row_without_rates_decodes_to_its_deltas_over_the_mean_interval():
    old = [buckets(60, 0, rates=False), buckets(7, 3, regular=False, rates=False)]
    new = buckets(5, 0, regular=False)
    for b in old:
        assert blocks.unpack(blocks.encode_buckets(b))[0] & blocks.RATES == 0  # nothing stored for no rates
        assert same(blocks.decode_buckets(blocks.encode_buckets(b)), stand_in(b))
    got = blocks.decode_buckets_grouped({1: [(blocks.encode_buckets(old[0]), 0), (blocks.encode_buckets(new), 60),
                                             (blocks.encode_buckets(old[1]), 70)]})[1]
    assert same(got, rollups.concat([stand_in(old[0]), rollups.shift(new, 60), rollups.shift(stand_in(old[1]), 70)]))


def test_it_decodes_the_rows_of_many_metrics_in_one_pass():
    floats = buckets(3, 10) | {"sum": np.array([0.5, 1.5, np.inf])}
    parts = {7: [(buckets(60, 0), 0), (buckets(60, 0, regular=False), 60), (buckets(60, 0), 120)],
             3: [(buckets(60, 0), 0), (buckets(17, 40), 60)], 9: [(floats, 500)], 4: [(buckets(1, 59), 9)],
             5: [(buckets(60, 0), 0), (buckets(10, 50, regular=False), 0)],  # overlapping: the later row wins
             6: [(buckets(0, 0), 0), (buckets(5, 0, regular=False), 60), (buckets(60, 0), 120)]}
    groups = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
    got = blocks.decode_buckets_grouped(groups)
    assert set(got) == set(parts)
    for key, rows in parts.items():
        expected = rollups.concat([rollups.shift(b, o) for b, o in rows])
        assert same(got[key], expected), key
        assert len(got[key]["idx"]) == len({i + o for b, o in rows for i in b["idx"].tolist()})


def test_it_decodes_many_compacted_hours_with_gaps_and_gauges():
    n = 360
    present = RNG.random((3, n)) > 0.1
    vals = RNG.integers(-1000, 10**9, (3, n))
    blobs = blocks.encode_series_matrix(vals, present, np.array([True, False, False]))
    for row, blob in enumerate(blobs):
        got, got_present = blocks.decode_series(blob, n)
        assert (got_present == present[row]).all() and (got == vals[row][present[row]]).all()
    got, got_present = blocks.decode_series_many(blobs[1:], [n, n])
    assert (got == np.concatenate([vals[1][present[1]], vals[2][present[2]]])).all()


def test_it_decodes_the_compacted_hours_of_many_metrics_at_once():
    rng = np.random.default_rng(11)  # its own: the other tests' draws stay as they were
    n = [360, 200, 360, 17]
    present = [rng.random(k) > 0.1 for k in n]
    vals = [rng.integers(-1000, 10**12, k) for k in n]
    counters = [True, False, False, True]  # a gauge's hours are each stored from its own first value
    blobs = [blocks.encode_series_matrix(v[None], p[None], np.array([c]))[0]
             for v, p, c in zip(vals, present, counters, strict=True)]
    floats = rng.random(50)
    blobs.append(blocks.encode_series(floats, np.ones(50, bool), counter=False))
    got = blocks.decode_series_grouped(["a", "b", "b", "c", "f"], blobs, n + [50])
    assert list(got) == ["a", "b", "c", "f"]
    for key, rows in (("a", [0]), ("b", [1, 2]), ("c", [3])):
        values, seen = got[key]
        assert values.tolist() == [x for r in rows for x in vals[r][present[r]].tolist()]
        assert seen.tolist() == [x for r in rows for x in present[r].tolist()]
    assert got["f"][0].tolist() == floats.tolist() and got["f"][1].all()


def test_it_joins_bucket_parts_by_index_the_last_part_winning():
    for _ in range(300):
        parts, count = [], int(RNG.integers(1, 5))
        for _p in range(count):
            n = int(RNG.integers(1, 6))
            mixed = count > 1 and RNG.random() < 0.2  # one part is taken as it is
            idx = RNG.integers(0, 40, n) if mixed else np.sort(RNG.choice(40, n, replace=False))
            parts.append(buckets(n, 0, regular=False, rates=False) | {"idx": idx.astype(np.int64)}
                         | {"rmin": RNG.random(n), "rmax": RNG.random(n)})
        if RNG.random() < 0.2:
            parts[-1] = parts[-1] | {"sum": parts[-1]["sum"].astype(np.float64)}
        want: dict = {}
        for p in parts:
            for row in zip(*(p[k].tolist() for k in rollups.KEYS), strict=True):
                want[row[0]] = row
        got = rollups.concat(parts)
        rows = list(zip(*(got[k].tolist() for k in rollups.KEYS), strict=True))
        assert rows == [want[i] for i in sorted(want)]


def float_buckets(n: int, first: int, rates: bool = True) -> dict:
    b = buckets(n, first, regular=bool(RNG.random() < 0.5), rates=rates)
    b |= {"count": RNG.integers(1, 400, n), "ms": RNG.integers(0, 10**8, n)}  # a zero interval, long varints
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308])
    for k in ("sum", "min", "max", "last"):
        b[k] = RNG.normal(0, 1e9, n) * RNG.random(n)
        b[k][RNG.random(n) < 0.1] = RNG.choice(special)
    return b


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.int64) if a.dtype.kind == "f" else a


def test_it_decodes_float_rows_of_many_metrics_bit_for_bit():
    for _ in range(20):
        parts = {}
        for key in range(int(RNG.integers(1, 30))):
            at, rows = 0, []
            for _r in range(int(RNG.integers(1, 6))):
                n = int(RNG.integers(0, 61))
                rows.append((float_buckets(n, int(RNG.integers(0, 3))), at))
                at += 60 + int(RNG.integers(0, 5000))
            parts[key] = rows
        parts[99] = [(float_buckets(20, 0, rates=False), 0), (float_buckets(9, 5), 10)]  # overlapping: later wins
        groups = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
        got = blocks.decode_buckets_grouped(groups)
        for key, rows in parts.items():
            by_row = [rollups.shift(blocks.decode_buckets(blob), o) for blob, o in groups[key]]
            expected = rollups.concat(by_row)
            assert set(got[key]) == set(expected), key
            for k in expected:
                assert got[key][k].dtype == expected[k].dtype and np.array_equal(bits(got[key][k]),
                                                                                   bits(expected[k])), (key, k)
            # and what was encoded: every bucket's float columns, bit for bit
            kept = {b["idx"][i] + o: (b, i) for b, o in rows for i in range(len(b["idx"]))}
            for j, idx in enumerate(got[key]["idx"].tolist()):
                b, i = kept[idx]
                assert [bits(got[key][k][j:j + 1]) for k in ("sum", "min", "max", "last")] == \
                       [bits(b[k][i:i + 1].astype(np.float64)) for k in ("sum", "min", "max", "last")]


def test_it_decodes_the_codes_at_some_places_as_the_whole_decode_does():
    for _ in range(50):
        n = int(RNG.integers(1, 400))
        bits = RNG.integers(0, 63, n)  # 1 to 10 bytes a code, mixed
        values = (RNG.integers(0, 2**62, n) >> (62 - bits)) * RNG.choice([-1, 1], n)
        nulls = RNG.random(n) < 0.1
        data = codec.encode(values, nulls)
        which = RNG.choice(n, int(RNG.integers(0, n + 1)), replace=False)
        got, got_nulls = codec.decode_at(data, which)
        assert (got_nulls == nulls[which]).all() and (got[~nulls[which]] == values[which][~nulls[which]]).all()
        whole, whole_nulls = codec.decode(data)
        assert (got == whole[which]).all() and (got_nulls == whole_nulls[which]).all()
    assert codec.decode_at(codec.encode(np.arange(5)), np.array([0, 4, 0])).__getitem__(0).tolist() == [0, 4, 0]


def test_a_rate_line_reads_each_rows_rates_and_indexes_as_the_whole_decode_does():
    rng = np.random.default_rng(23)  # its own: the other tests' draws stay as they were
    parts = {1: [(buckets(60, 0), 0), (buckets(60, 0, regular=False), 60), (buckets(60, 0), 120)],
             2: [(buckets(17, 40), 0), (buckets(1, 59), 60)],
             3: [(float_buckets(12, 1), 0), (float_buckets(60, 0), 60)],  # float sums: read whole, as before
             4: [(buckets(5, 0), 0), (buckets(9, 0, regular=False, rates=False), 60)],  # a row without rates
             5: [(buckets(0, 0), 0), (buckets(3, 2), 60)]}
    for b, _o in parts[1]:
        b["max"] = rng.integers(0, 2**62, len(b["idx"]))  # codes of up to 10 bytes among one-byte ones
    groups = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
    whole = blocks.decode_buckets_grouped(groups)
    got = blocks.decode_buckets_grouped({k: g for k, g in groups.items() if k != 4}, blocks.RATE_LINE)
    got |= blocks.decode_buckets_grouped({4: groups[4]}, blocks.RATE_LINE)  # alone: rows with rates read apart
    assert set(got) == set(parts)
    for key, rows in parts.items():
        assert set(got[key]) == {"idx", "rmin", "rmax"}
        assert same(got[key], {k: whole[key][k] for k in blocks.RATE_LINE}), key
        kept = {i + o: (b, j) for b, o in rows for j, i in enumerate(b["idx"].tolist())}
        assert got[key]["idx"].tolist() == sorted(kept)  # every bucket encoded, once, in order
    b, j = {i + o: (b, j) for b, o in parts[1] for j, i in enumerate(b["idx"].tolist())}[125]
    assert got[1]["rmax"][got[1]["idx"].tolist().index(125)] == b["rmax"][j]  # what was encoded, by hand
    expected = stand_in(parts[4][1][0])  # the row without rates: its deltas over the mean interval
    assert same({k: got[4][k][5:] for k in ("rmin", "rmax")}, {k: expected[k] for k in ("rmin", "rmax")})


def as_before(blob: bytes) -> bytes:
    """The row as it was written before rates had a part of their own: one body (head, then tail), zlib'd where
    that helps at all."""
    kind, head, tail = blocks.unpack_buckets(blob)
    return blocks.pack(kind | blocks.RATES, head + tail) if tail is not None else blocks.pack(kind, head)


def test_rows_written_before_rates_had_a_part_of_their_own_read_the_same():
    rng = np.random.default_rng(29)  # its own: the other tests' draws stay as they were
    parts = {1: [(buckets(60, 0), 0), (buckets(60, 0, regular=False), 60), (buckets(60, 0), 120)],
             2: [(float_buckets(12, 1), 0), (float_buckets(60, 0), 60)],
             3: [(buckets(5, 0, rates=False), 0), (buckets(9, 0, regular=False), 60)],
             4: [(buckets(24, 0) | {k: np.zeros(24, np.int64) for k in ("sum", "min", "max", "last")}, 0)]}
    parts[4][0][0]["rmin"] = parts[4][0][0]["rmax"] = np.zeros(24)  # a quiet counter: every part shrinks
    parts[1][1][0]["max"] = rng.integers(0, 2**62, 60)
    new = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
    old = {key: [(as_before(blob), o) for blob, o in rows] for key, rows in new.items()}
    mixed = {key: [(as_before(blob) if i % 2 else blob, o) for i, (blob, o) in enumerate(rows)]
             for key, rows in new.items()}
    assert all(blob[0] & blocks.SPLIT for blob, _o in new[1]) and not any(b[0] & blocks.SPLIT for b, _o in old[1])
    assert not new[3][0][0][0] & blocks.SPLIT  # no rates: one body, as before
    for fields in (blocks.FIELDS, ("idx", "sum", "ms"), blocks.RATE_LINE):
        got = [blocks.decode_buckets_grouped(groups, fields) for groups in (new, old, mixed)]
        for key in parts:
            assert same(got[0][key], got[1][key]) and same(got[2][key], got[1][key]), (fields, key)
    for key, rows in parts.items():
        for (blob, _o), (before, _o2), (b, _o3) in zip(new[key], old[key], rows, strict=True):
            assert same(blocks.decode_buckets(blob), blocks.decode_buckets(before))
            assert same(blocks.decode_buckets(blob), b if "rmin" in b else stand_in(b))  # what was encoded


def test_each_part_of_a_row_is_zlibd_only_where_that_takes_a_quarter_off_it():
    quiet = buckets(60, 0) | {k: np.zeros(60, np.int64) for k in ("sum", "min", "max", "last")}
    quiet["rmin"] = quiet["rmax"] = np.zeros(60)
    busy = buckets(60, 0)  # sums and extremes of up to 10**15: varints that hardly shrink; random rates
    assert blocks.encode_buckets(quiet)[0] & (blocks.ZLIB | blocks.TAIL_ZLIB) == blocks.ZLIB | blocks.TAIL_ZLIB
    assert blocks.encode_buckets(busy)[0] & (blocks.ZLIB | blocks.TAIL_ZLIB) == 0
    gauge = rollups.without_rates(float_buckets(60, 0))  # floats that hardly shrink: stored as they are
    assert blocks.encode_buckets(gauge)[0] == blocks.FLOAT  # neither zlib'd nor split: no rates
    assert same(blocks.decode_buckets(blocks.encode_buckets(gauge)), stand_in(gauge))
    quiet_gauge = rollups.without_rates(quiet)
    assert blocks.encode_buckets(quiet_gauge)[0] == blocks.REGULAR | blocks.ZLIB  # zeros shrink: zlib'd, as before
    blob = bytearray(blocks.encode_buckets(quiet))
    blob[-3:] = b"\xff\xff\xff"  # a broken tail: a total never inflates it
    got = blocks.decode_buckets_grouped({1: [(bytes(blob), 0)]}, ("idx", "sum", "ms"))[1]
    assert got["idx"].tolist() == list(range(60)) and got["sum"].tolist() == [0] * 60
    assert got["ms"].tolist() == [60_000] * 60


def test_float_rows_are_read_in_one_pass_not_row_by_row():
    rows = [(float_buckets(60, 2), 0), (float_buckets(17, 0, rates=False), 60), (float_buckets(0, 0), 120)]
    unpacked = {7: [(blocks.unpack_buckets(blocks.encode_buckets(b)), o) for b, o in rows]}
    got = blocks._float_rows(unpacked)  # {} would send every row to the row-by-row path
    assert got[7]["idx"].tolist() == [i + o for b, o in rows for i in b["idx"].tolist()]


def test_many_hours_poll_times_decode_as_each_hour_alone():
    rng = np.random.default_rng(5)  # its own: the other tests' draws stay as they were
    hours, expected = [], []
    for k, n in enumerate([360, 1, 0, 359, 17]):
        hour_us = (1_700_000_000 + 3600 * k) * 10**6
        ts = hour_us + np.sort(rng.choice(3600 * 10**6, n, replace=False)).astype(np.int64)
        iv = rng.integers(9_000, 11_000, n)
        iv[rng.random(n) < 0.1] = -1  # a poll of unknown interval (the first after a restart)
        hours.append((blocks.encode_times(ts, iv, hour_us), n, hour_us))
        expected.append((ts, iv))
    got = blocks.decode_times_many(*(list(x) for x in zip(*hours, strict=True)))
    assert len(got) == len(expected)
    for (ts, iv), (want_ts, want_iv) in zip(got, expected, strict=True):
        assert ts.tolist() == want_ts.tolist() and iv.tolist() == want_iv.tolist()


def test_a_rate_line_of_usual_rows_is_read_from_their_heads_first_codes_and_rates():
    rng = np.random.default_rng(31)  # its own: the other tests' draws stay as they were
    quiet = buckets(60, 0) | {k: np.zeros(60, np.int64) for k in ("sum", "min", "max", "last")}
    quiet["rmin"] = quiet["rmax"] = np.zeros(60)  # both parts zlib'd
    big = buckets(3, 2**40)  # a first index of six bytes
    big["max"] = rng.integers(0, 2**62, 3)
    parts = {1: [(buckets(60, 0), 0), (quiet, 60), (buckets(1, 59), 120)], 2: [(big, 7)], 3: [(buckets(24, 0), 24)],
             4: [(buckets(60, 0), 0), (buckets(10, 50), 0)]}  # overlapping: read as the whole decode reads them
    groups = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
    assert all(blob[0] & ~(blocks.ZLIB | blocks.TAIL_ZLIB) == blocks.LINE_ROW for rows in groups.values()
               for blob, _o in rows)
    assert groups[1][1][0][0] & (blocks.ZLIB | blocks.TAIL_ZLIB) == blocks.ZLIB | blocks.TAIL_ZLIB
    lines = blocks._rate_lines(groups)
    assert lines[2]["idx"].tolist() == [2**40 + 7, 2**40 + 8, 2**40 + 9]  # by hand: first index + offset, on
    assert lines[1]["rmax"][60:120].tolist() == [0.0] * 60 and lines[1]["idx"][-1] == 120 + 59
    got = blocks.decode_buckets_grouped(groups, blocks.RATE_LINE)
    whole = blocks.decode_buckets_grouped(groups)
    for key in parts:
        assert same(got[key], {k: whole[key][k] for k in blocks.RATE_LINE}), key


def cut(blob: bytes) -> bytes:
    """A row as read_rollups.SELECT_LINES sends it: a LINE_ROW whose head is not zlib'd and holds HEAD_PREFIX
    bytes or more, cut to its flags (HEAD_CUT added), the head's length, its first HEAD_PREFIX bytes and the rates."""
    length = int.from_bytes(blob[1:5], "little")
    if blob[0] & ~blocks.TAIL_ZLIB != blocks.LINE_ROW or length < blocks.HEAD_PREFIX:
        return blob
    return bytes([blob[0] | blocks.HEAD_CUT]) + blob[1:5 + blocks.HEAD_PREFIX] + blob[5 + length:]


def test_a_rate_line_of_usual_rows_cut_and_an_uneven_row_whole_is_read_at_once():
    rng = np.random.default_rng(37)  # its own: the other tests' draws stay as they were
    uneven = buckets(45, 0, regular=False)  # a first hour: its buckets count 1 to 6 polls, INT_PLAIN
    uneven["idx"] = np.arange(15, 60)  # its data began at 0:15
    busy = buckets(60, 0)
    busy |= {k: rng.integers(10**9, 10**12, 60) for k in ("sum", "min", "max", "last")}  # zlib hardly helps
    parts = {1: [(uneven, 0), (busy, 60), (busy, 120)], 2: [(busy, 0)], 3: [(uneven, 60)]}
    whole = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()}
    assert whole[1][0][0][0] & ~(blocks.ZLIB | blocks.TAIL_ZLIB) == blocks.PLAIN_LINE
    groups = {key: [(cut(blob), o) for blob, o in rows] for key, rows in whole.items()}
    assert groups[1][1][0][0] & blocks.HEAD_CUT and groups[1][0][0] == whole[1][0][0]  # cut, and kept whole
    got = blocks.decode_buckets_grouped(groups, blocks.RATE_LINE)
    assert got[1]["idx"].tolist() == list(range(15, 180))  # by hand: 15-59, then 60 + 0-59, 120 + 0-59
    assert got[3]["idx"].tolist() == list(range(75, 120))  # 60 + 15-59
    everything = blocks.decode_buckets_grouped(whole)
    for key in parts:
        assert same(got[key], {k: everything[key][k] for k in blocks.RATE_LINE}), key


def gauge_hour(rng: np.random.Generator, n: int, first: int, most: int = 7) -> dict:
    """A float gauge's row as compaction stores it (no rates): its buckets' counts under `most`."""
    b = {"idx": np.arange(first, first + n), "count": rng.integers(1, most, n), "ms": np.full(n, 60_000)}
    b |= {k: rng.normal(0, 1e9, n) for k in ("sum", "min", "max", "last")}
    b["max"][rng.random(n) < 0.1] = np.nan
    return b


def test_a_gauges_line_reads_whole_hours_as_one_matrix_and_the_others_as_before():
    rng = np.random.default_rng(41)  # its own: the other tests' draws stay as they were
    parts = {k: [(gauge_hour(rng, 60, 0), 0), (gauge_hour(rng, 60, 0), 60), (gauge_hour(rng, 17, 43), 120)]
             for k in range(10)}  # a line's rows enough for the matrix (blocks.MATRIX_ROWS)
    parts[10] = [(gauge_hour(rng, 60, 0), 0)]
    parts[11] = [(gauge_hour(rng, 0, 0), 0)]  # no bucket: left to the row-by-row path, which types its columns
    busy = {12: [(gauge_hour(rng, 60, 0, most=300), 0), (gauge_hour(rng, 60, 0), 60)]}  # counts of two bytes
    for some in (parts, busy, parts | busy):
        groups = {key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in some.items()}
        assert all(blob[0] == blocks.FLOAT for rows in groups.values() for blob, _o in rows)
        got = blocks.decode_buckets_grouped(groups, blocks.GAUGE_LINE)
        whole = blocks.decode_buckets_grouped(groups)
        for key in some:
            assert set(got[key]) == set(blocks.GAUGE_LINE), key
            for k in blocks.GAUGE_LINE:
                assert got[key][k].dtype == whole[key][k].dtype and np.array_equal(
                    bits(got[key][k]), bits(whole[key][k])), (key, k)
    lines = blocks._gauge_lines({key: [(blocks.encode_buckets(b), o) for b, o in rows] for key, rows in parts.items()})
    assert sorted(lines) == list(range(11))  # by hand: every key with a bucket
    assert lines[2]["idx"].tolist() == list(range(120)) + list(range(163, 180))
    assert lines[2]["count"].tolist() == [c for b, _o in parts[2] for c in b["count"].tolist()]
