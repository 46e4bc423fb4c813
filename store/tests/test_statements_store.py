"""Statement digests' compact rows: exact sums past 64 bits, one row per read, levels as read."""

import importlib
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from store import statement_hours, statement_reads
from store.statements import COUNTERS, StatementRow, write

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
BIG = 4 * 10**18  # picoseconds in one read's delta: ten of them pass 2**63


def row(k: int, digest: str, execs: int, time_ps: int, p95: int | None = None) -> StatementRow:
    counts = tuple({"execs": execs, "time_ps": time_ps, "rows_sent": k}.get(name, 0) for name in COUNTERS)
    return StatementRow(1, T0 + timedelta(seconds=60 * k), 60_000, "s", digest, counts, 1000 * k, p95, p95)


def test_sums_are_exact_past_64_bits_and_levels_are_the_newest():
    write([row(k, "big", 3, BIG + k, p95=None if k == 10 else 500 + k) for k in range(1, 11)]
          + [row(k, "small", k, 7) for k in range(1, 11)], {("s", "big"): ("SELECT ?", "")})
    found = {t.digest: t for t in statement_reads.totals(1, T0, T0 + timedelta(hours=1))}
    big = found["big"]
    assert big.sums["time_ps"] == sum(BIG + k for k in range(1, 11)) > 2**63
    assert big.sums["execs"] == 30 and big.sums["rows_sent"] == 55 and big.intervals == 10
    assert big.max_ps == 10_000 and big.p95_ps == 509  # the newest quantile read (the last read had none)
    assert big.text == "SELECT ?" and found["small"].sums["execs"] == 55


def test_a_read_written_twice_is_stored_once_and_a_range_is_start_exclusive():
    rows = [row(k, "d", 2, 10) for k in range(1, 4)]
    write(rows, {})
    write(rows, {})
    assert statement_reads.totals(1, T0, T0 + timedelta(hours=1))[0].sums["execs"] == 6
    after_first = statement_reads.totals(1, T0 + timedelta(seconds=60), T0 + timedelta(hours=1))
    assert after_first[0].sums["execs"] == 4  # the read ending at the start is not in (start, end]
    line = statement_reads.lines(1, [after_first[0].digest_id], T0, T0 + timedelta(hours=1))
    assert [r[2] for r in line[after_first[0].digest_id]] == [2, 2, 2]


def test_reads_are_each_read_s_end_and_interval_in_the_range():
    odd = StatementRow(1, T0 + timedelta(seconds=181, microseconds=7), 59_993, "s", "d", (0,) * len(COUNTERS), 1,
                       None, None)  # a read off the minute, by microseconds
    write([row(k, "d", 2, 10) for k in (1, 2, 3)] + [odd], {})
    assert statement_reads.reads(1, T0 + timedelta(seconds=60), T0 + timedelta(hours=1)) == [
        (datetime(2026, 3, 2, 10, 2, tzinfo=UTC), 60_000), (datetime(2026, 3, 2, 10, 3, tzinfo=UTC), 60_000),
        (datetime(2026, 3, 2, 10, 3, 1, 7, tzinfo=UTC), 59_993)]


def hour_rows(k: int) -> list[StatementRow]:
    """The read ending k minutes after T0 - 30 min: three digests whose figures vary with k."""
    ts = T0 + timedelta(minutes=k - 30)
    out = []
    for d, digest in enumerate(("a", "b", "c")):
        if digest == "c" and k % 7 == 0:
            continue  # c does not run every minute
        counts = tuple((k * (i + 3) + d) % 1000 + (10**13 * k if name == "time_ps" else 0)
                       for i, name in enumerate(COUNTERS))
        p95 = None if (k + d) % 5 == 0 else 1000 * k + d
        out.append(StatementRow(1, ts, 60_000, "s", digest, counts, (k * 37 + d) % 500, p95, p95))
    return out


def expected(rows: list[StatementRow], start: datetime, end: datetime) -> dict:
    """Per digest, what an engineer adding up the rows of (start, end] gets."""
    out: dict = {}
    for r in sorted(rows, key=lambda r: r.ts):
        if start < r.ts <= end:
            e = out.setdefault(r.digest, {"sums": [0] * len(COUNTERS), "reads": 0, "max": 0, "p95": None,
                                          "first": r.ts})
            e["sums"] = [a + b for a, b in zip(e["sums"], r.counts, strict=True)]
            e["reads"] += 1
            e["max"] = max(e["max"], r.max_ps)
            e["p95"] = r.p95_ps if r.p95_ps is not None else e["p95"]
            e["last"] = r.ts
    return out


def got(start: datetime, end: datetime) -> dict:
    return {t.digest: {"sums": [t.sums[n] for n in COUNTERS], "reads": t.intervals, "max": t.max_ps, "p95": t.p95_ps,
                       "first": t.first, "last": t.last} for t in statement_reads.totals(1, start, end)}


def test_a_range_over_hourly_rollups_and_raw_reads_sums_as_the_raw_rows_do():
    rows = [r for k in range(1, 181) for r in hour_rows(k)]  # 09:31 to 12:30, a read a minute
    write(rows, {})
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))  # 09, 10 and 11 h closed; 12 h still open
    start, end = T0 - timedelta(minutes=15), T0 + timedelta(hours=2, minutes=20)
    assert got(start, end) == expected(rows, start, end)
    # The two whole hours inside come from their rollups (a row per digest), the edges from their reads.
    edge_reads = sum(1 for r in rows if start < r.ts <= T0 or T0 + timedelta(hours=2) < r.ts <= end)
    assert len(statement_reads.pieces(1, start, end).ids) == 2 * 3 + edge_reads

    late = [StatementRow(1, T0 + timedelta(minutes=30, seconds=30), 30_000, "s", "a", (1,) * len(COUNTERS), 999, 7, 7)]
    write(late, {})  # into a rolled-up hour: read raw until it is rolled up again
    assert got(start, end) == expected(rows + late, start, end)
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))
    assert got(start, end) == expected(rows + late, start, end)
    assert len(statement_reads.pieces(1, start, end).ids) == 2 * 3 + edge_reads


def test_an_hour_whose_sums_pass_the_varints_stays_raw():
    write([row(k, "big", 3, BIG + k) for k in range(1, 11)], {})
    statement_hours.roll_closed(T0 + timedelta(hours=3))
    found = statement_reads.totals(1, T0, T0 + timedelta(hours=1))
    assert found[0].sums["time_ps"] == sum(BIG + k for k in range(1, 11))


def test_binned_sums_equal_the_lines_binned_by_hand_over_rollups_and_reads():
    rows = [r for k in range(1, 181) for r in hour_rows(k)]
    write(rows, {})
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))
    start, end = T0 - timedelta(minutes=15), T0 + timedelta(hours=2, minutes=20)
    ids = [t.digest_id for t in statement_reads.totals(1, start, end)]
    for count in (2, 7, 40):  # bins wider than an hour (most hours from their rollup), and narrower
        width = (end - start) / count
        expected = {i: [[0, 0] for _ in range(count)] for i in ids}
        for digest_id, line in statement_reads.lines(1, ids, start, end).items():
            for ts, _, execs, time_ps, *_ in line:
                cell = expected[digest_id][min(count - 1, max(0, int((ts - start) / width)))]
                cell[0] += execs
                cell[1] += time_ps
        assert statement_reads.binned(1, ids, start, end, count) == expected


@pytest.mark.parametrize("end, count", [
    (T0 + timedelta(hours=2, minutes=20), 2),  # 11:00-12:00 straddles 11:02:30: its first two reads are read
    (T0 + timedelta(hours=2, minutes=20), 3),  # the last 24 reads of 10:00-11:00, the first 28 of 11:00-12:00
    (T0 + timedelta(hours=2, minutes=16), 2),  # 11:00:30: no read of 11:00-12:00 before it, the rollup is bin 1's
])
def test_binned_sums_of_hours_across_two_bins_are_the_reads_sums(end, count):
    rows = [r for k in range(1, 181) for r in hour_rows(k)]
    write(rows, {})
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))
    late = StatementRow(1, T0 + timedelta(hours=1, minutes=40, seconds=30), 30_000, "s", "b", (5,) * len(COUNTERS),
                        1, None, None)
    write([late], {})  # 11:00-12:00 is read raw until it is rolled up again
    start = T0 - timedelta(minutes=15)
    ids = {t.digest: t.digest_id for t in statement_reads.totals(1, start, end)}
    width = (end - start) / count
    expected = {i: [[0, 0] for _ in range(count)] for i in ids.values()}
    for r in rows + [late]:
        if start < r.ts <= end:
            cell = expected[ids[r.digest]][min(count - 1, int((r.ts - start) / width))]
            cell[0] += r.counts[COUNTERS.index("execs")]
            cell[1] += r.counts[COUNTERS.index("time_ps")]
    assert statement_reads.binned(1, list(ids.values()), start, end, count) == expected
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=4))
    assert statement_reads.binned(1, list(ids.values()), start, end, count) == expected


def test_the_upgrade_marks_the_hours_of_reads_stored_before_it():
    upgrade = importlib.import_module("store.migrations.0007_statement_hour_rollups")
    rows = [r for k in range(1, 181) for r in hour_rows(k)]
    write(rows, {})
    with connection.cursor() as cur:
        cur.execute("DELETE FROM store_statement_pending")  # as stored before the rollups existed
        cur.execute(upgrade.PENDING)
        cur.execute("SELECT hour FROM store_statement_pending ORDER BY hour")
        marked = [hour for (hour,) in cur.fetchall()]
    assert marked == [T0 + timedelta(hours=h) for h in (-1, 0, 1, 2)]  # reads from 09:31 to 12:30
    statement_hours.roll_closed(T0 + timedelta(hours=4))
    start, end = T0 - timedelta(hours=1), T0 + timedelta(hours=3)
    assert len(statement_reads.pieces(1, start, end).ids) == 4 * 3  # every hour from its rollup
    assert got(start, end) == expected(rows, start, end)


def test_one_digest_read_alone_sums_its_own_rows_over_rollups_and_reads():
    rows = [r for k in range(1, 181) for r in hour_rows(k)]
    write(rows, {})
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))
    start, end = T0 - timedelta(minutes=15), T0 + timedelta(hours=2, minutes=20)
    ids = {t.digest: t.digest_id for t in statement_reads.totals(1, start, end)}
    for digest in ("a", "c"):  # c misses some reads; both lack some quantiles
        alone = statement_reads.totals(1, start, end, [ids[digest]])
        assert {t.digest: {"sums": [t.sums[n] for n in COUNTERS], "reads": t.intervals, "max": t.max_ps,
                           "p95": t.p95_ps, "first": t.first, "last": t.last} for t in alone} == {
            digest: expected(rows, start, end)[digest]}
    # Only c's rows are decoded: one per rolled hour (10 h and 11 h), and its reads at the edges.
    edges = [r for r in rows if start < r.ts <= T0 or T0 + timedelta(hours=2) < r.ts <= end]
    edge_reads = sum(1 for r in edges if r.digest == "c")
    assert len(statement_reads.pieces(1, start, end, digest_ids=[ids["c"]]).ids) == 2 + edge_reads


def test_one_column_sums_as_the_raw_rows_do_over_rollups_and_reads():
    rows = [r for k in range(1, 181) for r in hour_rows(k)] + [row(k, "big", 3, BIG + k) for k in range(1, 11)]
    write(rows, {})  # big: past 64 bits, in 10-11 h
    statement_hours.roll_closed(T0 + timedelta(hours=3, minutes=2))
    late = StatementRow(1, T0 + timedelta(minutes=30, seconds=30), 30_000, "s", "a", (1,) * len(COUNTERS), 9, 7, 7)
    write([late], {})  # into a rolled-up hour: 10 h is read raw, 11 h from its rollup
    start, end = T0 - timedelta(minutes=15), T0 + timedelta(hours=2, minutes=20)
    ids = {t.digest: t.digest_id for t in statement_reads.totals(1, start, end)}
    for column in ("time_ps", "lock_ps", "rows_examined"):
        by_hand = {ids[r.digest]: 0 for r in rows}
        for r in [*rows, late]:
            if start < r.ts <= end:
                by_hand[ids[r.digest]] += r.counts[COUNTERS.index(column)]
        assert statement_reads.column_sums(1, start, end, column) == by_hand
    assert statement_reads.column_sums(1, start, end, "time_ps")[ids["big"]] > 2**63
    assert statement_reads.column_sums(1, end + timedelta(days=1), end + timedelta(days=2), "time_ps") == {}
