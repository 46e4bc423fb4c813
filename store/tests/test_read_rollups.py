"""Rollup reads equal the aggregates of the raw samples, across every level a range spans.

A range here covers a day whose 1-hour rollups are written, a closed day and
the current day still pending (their hour buckets derived from 1-minute
rollups), and a current hour still hot. The expected buckets are computed
from the samples written, in plain Python.
"""

from datetime import datetime, timedelta

import numpy as np
import pytest
from django.db import connection

from store import blocks, compaction, levels, query, read_rollups, retention, rollup_days
from store.catalog import server_metrics
from store.ingest import write_samples
from store.points import micros
from store.sample import Sample
from testing.store import PS_TIMER, T0, poll

pytestmark = pytest.mark.django_db
STEP = 20
DAY0 = T0.replace(hour=0)  # T0 is 10:00: day 0 from 10:00 on, day 1 whole, day 2 until END
END = DAY0 + timedelta(days=2, hours=5, minutes=20)  # 05:00-05:20 of day 2 stays hot
WIDTH = {"1m": timedelta(minutes=1), "1h": timedelta(hours=1)}


def write_days() -> list[Sample]:
    samples = [poll(1, i, step=STEP) for i in range(int((END - T0).total_seconds()) // STEP)]
    write_samples(samples)
    compaction.compact_closed(END)  # every hour but the current one
    assert rollup_days.roll_closed(DAY0 + timedelta(days=2, minutes=30)) == 1  # day 0 only
    return samples


def expected(samples: list[Sample], hot_from: datetime, name: str, level: str,
             start: datetime, end: datetime) -> dict:
    """Buckets of the polls in [start, end]: where compacted, only those wholly inside (a stored bucket
    holds every poll of its minute or hour); where hot, those of the range's polls."""
    width = micros(DAY0 + WIDTH[level]) - micros(DAY0)
    lo, hi = micros(start), micros(end)
    out: dict = {}
    for s in sorted(samples, key=lambda s: s.ts):
        hot = s.ts >= hot_from
        if name in s.values and (not hot or start <= s.ts <= end):
            out.setdefault(micros(s.ts) // width, []).append(s.values[name])
    hot_bucket = micros(hot_from) // width  # the first bucket made of hot polls (hot_from is a whole hour)
    return {k: (len(v), sum(v), min(v), max(v), v[-1]) for k, v in out.items()
            if (k >= hot_bucket and lo - lo % width <= k * width <= hi)
            or (k < hot_bucket and lo <= k * width and (k + 1) * width <= hi + 1)}


def found(server_id: int, level: str, start: datetime, end: datetime) -> dict[str, dict]:
    infos = server_metrics([server_id])
    got = read_rollups.read(server_id, infos, level, start, end)
    return {m.name: {int(i): (int(c), s, lo, hi, last) for i, c, s, lo, hi, last in zip(
        got[m.id]["idx"].tolist(), got[m.id]["count"].tolist(), got[m.id]["sum"].tolist(),
        got[m.id]["min"].tolist(), got[m.id]["max"].tolist(), got[m.id]["last"].tolist(), strict=True)}
        for m in infos}


HOT_FROM = END.replace(minute=0)


@pytest.mark.parametrize("level", ["1m", "1h"])
@pytest.mark.parametrize("start,end", [
    (T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)),  # ragged, ends hot
    (T0, END),
    (DAY0 + timedelta(days=1, hours=3, seconds=1), DAY0 + timedelta(days=2, hours=2, minutes=30)),  # no hot part
])
def test_it_reads_the_aggregates_of_the_raw_samples_over_every_level(level, start, end):
    samples = write_days()
    got = found(1, level, start, end)
    assert set(got) == {"Com_select", "Com_commit", "Com_rollback", "Threads_running", "load",
                        "wait.time_ps:wait/io/file/innodb/innodb_data_file"}
    for name, buckets in got.items():
        assert buckets == expected(samples, HOT_FROM, name, level, start, end), name
    assert len(got["Threads_running"]) > (20 if level == "1h" else 1000)
    assert got == found(1, level, start, end)  # a second read (served from what the first kept) agrees


@pytest.mark.parametrize("level", ["1m", "1h"])
def test_a_rate_line_reads_a_counters_indexes_and_rates_and_a_gauges_every_column(level):
    write_days()
    start, end = T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)  # ragged, ends hot
    infos = server_metrics([1])
    whole = read_rollups.read(1, infos, level, start, end)
    lines = read_rollups.read(1, infos, level, start, end, rate_lines=True)
    for m in infos:
        keys = ("idx", "rmin", "rmax") if m.counter else tuple(whole[m.id])
        assert set(lines[m.id]) == set(keys), m.name
        for k in keys:
            assert np.array_equal(lines[m.id][k], whole[m.id][k], equal_nan=True), (m.name, k)
    assert {m.name for m in infos if not m.counter} == {"Threads_running", "load"}
    assert len(lines[next(m.id for m in infos if m.name == "Com_select")]["idx"]) > (20 if level == "1h" else 1000)


@pytest.mark.parametrize("level", ["1m", "1h"])
def test_a_gauges_line_reads_its_indexes_counts_sums_and_extremes_only(level):
    write_days()
    start, end = T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)  # ragged, ends hot
    gauges = [m for m in server_metrics([1]) if not m.counter]
    whole = read_rollups.read(1, gauges, level, start, end)
    lines = read_rollups.read(1, gauges, level, start, end, rate_lines=True, gauge_lines=True)
    for m in gauges:
        assert set(lines[m.id]) == {"idx", "count", "sum", "min", "max"}, m.name  # by hand: what _bucket_points draws
        for k in lines[m.id]:
            assert np.array_equal(lines[m.id][k], whole[m.id][k], equal_nan=True), (m.name, k)
    assert {m.name for m in gauges} == {"Threads_running", "load"}
    assert {whole[m.id]["sum"].dtype.kind for m in gauges} == {"i", "f"}  # an integer gauge's rows, a float one's
    assert all(len(lines[m.id]["idx"]) > (20 if level == "1h" else 1000) for m in gauges)


def written_as_before() -> int:
    """Every rollup row rewritten as rows were before rates had a part of their own (one body, the rates at
    its end, zlib'd where that helps at all); the rows rewritten."""
    rewritten = 0
    with connection.cursor() as cur:
        for table in read_rollups.TABLE.values():
            cur.execute(f"SELECT server_id, metric_id, period, data FROM {table}")
            rows = cur.fetchall()
            rewritten += len(rows)
            for sid, mid, period, data in rows:
                kind, head, tail = blocks.unpack_buckets(bytes(data))
                old = blocks.pack(kind | blocks.RATES, head + tail) if tail is not None else blocks.pack(kind, head)
                cur.execute(f"UPDATE {table} SET data = %s WHERE server_id = %s AND metric_id = %s AND period = %s",
                            [old, sid, mid, period])
        cur.execute("SELECT count(*) FROM store_rollup_1m WHERE get_byte(data, 0) & %s > 0", [blocks.SPLIT])
        assert cur.fetchone()[0] == 0
    return rewritten


@pytest.mark.parametrize("level", ["1m", "1h"])
def test_rows_written_before_rates_had_a_part_of_their_own_read_the_same(level):
    samples = write_days()
    start, end = T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)  # ragged, ends hot
    infos = server_metrics([1])
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM store_rollup_1m WHERE get_byte(data, 0) & %s > 0", [blocks.SPLIT])
        assert cur.fetchone()[0] > 0  # a counter's rows, as written now
    now = [read_rollups.read(1, infos, level, start, end, **kw) for kw in ({}, {"sums_only": True},
                                                                             {"rate_lines": True})]
    assert written_as_before() > 0
    before = [read_rollups.read(1, infos, level, start, end, **kw) for kw in ({}, {"sums_only": True},
                                                                                {"rate_lines": True})]
    for a, b in zip(now, before, strict=True):
        assert {m: set(c) for m, c in a.items()} == {m: set(c) for m, c in b.items()}
        for mid, cols in a.items():
            for k, v in cols.items():
                assert np.array_equal(v, b[mid][k], equal_nan=True), (mid, k)
    assert found(1, level, start, end)["Com_select"] == expected(samples, HOT_FROM, "Com_select", level, start, end)


def late(ts: datetime, threads: int) -> Sample:
    return Sample(1, "global_status", ts, None, {"Threads_running": threads})


NONE_HOT = END + timedelta(days=30)  # once the last hour is compacted


def last_of(day: datetime) -> datetime:
    return day + timedelta(days=1) - timedelta(microseconds=1)


def hours_of(day: datetime) -> dict:
    return found(1, "1h", day, last_of(day))["Threads_running"]


def peak(buckets: dict) -> int:
    return max(b[3] for b in buckets.values())


def test_it_shows_a_sample_that_arrives_after_a_read_in_the_next_read():
    samples = write_days()
    day1, day2 = DAY0 + timedelta(days=1), DAY0 + timedelta(days=2)
    assert hours_of(day2) == expected(samples, HOT_FROM, "Threads_running", "1h", day2, last_of(day2))
    # a new poll in the hot hour
    samples.append(late(END + timedelta(seconds=5), 901))
    write_samples(samples[-1:])
    assert peak(hours_of(day2)) == 901
    # the hot hour compacted: the same values, now from the pending day's 1-minute rollups
    compaction.compact_closed(END + timedelta(hours=2))
    assert hours_of(day2) == expected(samples, NONE_HOT, "Threads_running", "1h", day2, last_of(day2))
    # a late poll in an hour of a pending day that was compacted (and read) already
    before = hours_of(day1)
    samples.append(late(day1 + timedelta(hours=4, seconds=3), 902))
    write_samples(samples[-1:])
    compaction.compact_closed(END + timedelta(hours=2))
    after = hours_of(day1)
    assert after != before and after == expected(samples, NONE_HOT, "Threads_running", "1h", day1, last_of(day1))
    assert after[micros(day1 + timedelta(hours=4)) // 3_600_000_000][3] == 902


def test_it_shows_a_late_sample_of_a_day_whose_hours_were_written():
    samples = write_days()
    assert peak(hours_of(DAY0)) < 900  # read from the 1-hour rollups
    samples.append(late(T0 + timedelta(hours=1, seconds=7), 903))
    write_samples(samples[-1:])
    compaction.compact_closed(END + timedelta(hours=2))  # the day is pending again
    want = expected(samples, NONE_HOT, "Threads_running", "1h", DAY0, last_of(DAY0))
    assert hours_of(DAY0) == want and peak(want) == 903
    assert rollup_days.roll_closed(END + timedelta(days=2)) == 3  # the day's hours written again
    assert hours_of(DAY0) == want


def test_it_stops_showing_a_pending_day_whose_minutes_retention_dropped():
    write_days()
    day1 = DAY0 + timedelta(days=1)
    assert len(hours_of(day1)) == 24 and len(hours_of(DAY0)) == 14
    retention.apply(day1 + timedelta(days=91))  # 1-minute rollups are kept 90 days, 1-hour ones 2 years
    assert hours_of(day1) == {}  # its hours were never written: nothing is left of it
    assert len(hours_of(DAY0)) == 14


@pytest.mark.parametrize("start,end", [
    (T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)),  # ragged, ends hot
    (DAY0 + timedelta(days=1, hours=3, seconds=1), DAY0 + timedelta(days=2, hours=2, seconds=30)),  # ends 30 s in
    (DAY0 + timedelta(days=1, hours=2, minutes=59, seconds=40), DAY0 + timedelta(days=1, hours=6)),  # starts late
])
def test_ranking_totals_are_the_sums_of_the_minutes_wholly_inside(start, end):
    samples = write_days()
    assert levels.choose(start, end, 60) == levels.MINUTE  # whole hours summed from the hour buckets
    names = ["Com_select", "Com_commit", "Com_rollback", PS_TIMER]
    want = {name: sum(b[1] for b in expected(samples, HOT_FROM, name, "1m", start, end).values()) for name in names}
    got = query.ranking_totals(1, names, start, end, 60)
    assert got == want
    assert all(type(v) is int for v in got.values())


@pytest.mark.parametrize("level", ["1m", "1h"])
def test_a_rate_line_whose_rows_are_not_all_the_usual_kind_is_read_again_whole(level):
    rng = np.random.default_rng(3)  # busy deltas: heads that zlib does not shrink (a rate line's read cuts them)
    gone = range(200, 203)  # three polls missing: their minute counts fewer, so its hour's row is not REGULAR
    write_samples([Sample(1, "global_status", T0 + timedelta(seconds=STEP * i), float(STEP),
                          {"Com_select": int(rng.integers(10**9, 10**12))}, frozenset({"Com_select"}))
                   for i in range(1, int((END - T0).total_seconds()) // STEP) if i not in gone])
    compaction.compact_closed(END)
    rollup_days.roll_closed(DAY0 + timedelta(days=2, minutes=30))
    select = server_metrics([1])[0]
    with connection.cursor() as cur:
        cur.execute("SELECT get_byte(data, 0) & %s FROM store_rollup_1m WHERE metric_id = %s",
                    [0xFF & ~blocks.TAIL_ZLIB, select.id])
        kinds = {r[0] for r in cur.fetchall()}
    assert blocks.LINE_ROW in kinds and len(kinds) > 1  # usual rows (cut), and the hour around the missing polls
    start, end = T0 + timedelta(minutes=7, seconds=33), END - timedelta(minutes=3, seconds=10)
    whole = read_rollups.read(1, [select], level, start, end)[select.id]
    lines = read_rollups.read(1, [select], level, start, end, rate_lines=True)[select.id]  # cut rows, then whole
    assert set(lines) == {"idx", "rmin", "rmax"}
    for k in lines:
        assert np.array_equal(lines[k], whole[k], equal_nan=True), k
    assert len(lines["idx"]) > (20 if level == "1h" else 1000)
