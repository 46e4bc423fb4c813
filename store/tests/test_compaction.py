"""Compaction changes no value read back; rollups equal the aggregates of the raw data."""

from datetime import timedelta

import numpy as np
import pytest
from django.db import connection

from store import compaction, query, read_rollups, rollup_days, rollups
from store.catalog import server_metrics
from store.ingest import write_samples
from store.points import micros
from testing.store import PS_TIMER, T0, poll, polls

pytestmark = pytest.mark.django_db
END = T0 + timedelta(hours=4)
LATER = T0 + timedelta(days=1)


def snapshot(server_id: int) -> dict:
    full = query.series([server_id], ["*"], T0, END, max_points=10**6, mode="delta")
    return {
        "series": {(s.metric, s.kind): list(zip(s.ts, s.values, strict=True)) for s in full},
        "rates": [s.values for s in query.series([server_id], ["*"], T0, END, max_points=10**6)],
        "totals": query.totals(server_id, ["*"], T0, END),
        "latest": query.latest([server_id], ["*"]),
    }


def hot_rows() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM store_raw")
        return cur.fetchone()[0]


def test_it_changes_no_value_read_back():
    write_samples(polls(1, 3 * 360 + 50))  # three closed hours and a bit
    before = snapshot(1)
    assert compaction.compact_closed(LATER)
    assert hot_rows() == 0
    assert snapshot(1) == before
    assert len(before["series"][("Com_select", "counter")]) == 3 * 360 + 49


def test_it_merges_late_samples_into_a_compacted_hour():
    samples = polls(1, 720)
    write_samples(samples[:300] + samples[310:])
    compaction.compact_closed(LATER)
    write_samples(samples[295:312])  # ten late polls and some already compacted
    assert hot_rows() == 17
    compaction.compact_closed(LATER)
    assert hot_rows() == 0
    (s,) = query.series([1], ["Threads_running"], T0, END, max_points=10**6)
    assert s.ts == [p.ts for p in samples]
    assert query.totals(1, [PS_TIMER], T0, END)[PS_TIMER] == sum(p.values.get(PS_TIMER, 0) for p in samples)


def raw_buckets(samples, name: str, width: timedelta) -> dict:
    out: dict = {}
    for s in samples:
        if name in s.values:
            key = micros(s.ts) // int(width.total_seconds() * 1e6)
            out.setdefault(key, []).append(s.values[name])
    return {k: (len(v), sum(v), min(v), max(v), v[-1]) for k, v in out.items()}


@pytest.mark.parametrize("level,width,day_closed", [
    ("1m", timedelta(minutes=1), False),
    ("1h", timedelta(hours=1), False),  # derived from the 1-minute rollups
    ("1h", timedelta(hours=1), True),  # written once the day is over
])
def test_it_rolls_up_to_the_aggregates_of_the_raw_data(level, width, day_closed):
    samples = polls(1, 2 * 360 + 100)
    write_samples(samples)
    compaction.compact_closed(LATER)  # two hours compacted, the rest still hot
    if day_closed:
        assert rollup_days.roll_closed(LATER + timedelta(days=1)) == 1
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM store_rollup_1h")
            assert cur.fetchone()[0] == len(server_metrics([1]))
    infos = server_metrics([1])
    got = read_rollups.read(1, infos, level, T0, END)
    for m in infos:
        b = got[m.id]
        found = {int(i): (int(c), s, lo, hi, last) for i, c, s, lo, hi, last in
                 zip(b["idx"], b["count"], b["sum"].tolist(), b["min"].tolist(), b["max"].tolist(),
                     b["last"].tolist(), strict=True)}
        assert found == raw_buckets(samples, m.name, width), m.name


def test_it_serves_long_ranges_from_rollups_keeping_spikes():
    samples = polls(1, 3 * 360)
    spike = samples[500]
    samples[500] = type(spike)(1, spike.source, spike.ts, 10.0, spike.values | {"Threads_running": 999},
                               spike.counters)
    write_samples(samples)
    compaction.compact_closed(LATER)
    (s,) = query.series([1], ["Threads_running"], T0, T0 + timedelta(days=2), max_points=100)
    assert len(s.values) <= 100 and max(s.values) == 999 and min(s.values) == 1
    (r,) = query.series([1], ["Com_select"], T0, T0 + timedelta(days=2), max_points=100)
    rates = [p.values["Com_select"] / 10 for p in samples[1:]]
    assert max(r.values) == pytest.approx(max(rates)) and min(r.values) == pytest.approx(min(rates))


def test_it_keeps_picosecond_sums_exact_in_rollups():
    samples = polls(1, 2000)
    write_samples(samples)
    compaction.compact_closed(LATER)
    rollup_days.roll_closed(LATER + timedelta(days=1))
    got = read_rollups.read(1, [m for m in server_metrics([1]) if m.name == PS_TIMER], "1h", T0, LATER)
    (b,) = got.values()
    assert sum(b["sum"].tolist()) == sum(p.values.get(PS_TIMER, 0) for p in samples)
    assert b["sum"].dtype == np.int64 and len(b["idx"]) == 6
    assert rollups.MINUTE_US * 60 == rollups.HOUR_US
    assert poll(1, 1).values[PS_TIMER] > 2**52


@pytest.mark.parametrize("start,end", [
    (timedelta(minutes=7, seconds=33), timedelta(hours=2, minutes=13, seconds=5)),
    (timedelta(seconds=0), timedelta(hours=3, minutes=20)),  # aligned, both ends included
    (timedelta(minutes=61, seconds=2), timedelta(minutes=61, seconds=40)),  # inside one minute
    (timedelta(minutes=59, seconds=50), timedelta(hours=1, minutes=0, seconds=10)),  # across an hour
])
def test_it_sums_exactly_over_ragged_ranges_from_rollups_and_samples(start, end):
    samples = polls(1, 3 * 360 + 200)
    write_samples(samples)
    compaction.compact_closed(LATER)  # three hours compacted, the rest hot
    lo, hi = T0 + start, T0 + end
    got = query.totals(1, ["Com_*", PS_TIMER], lo, hi)
    for name in ("Com_select", "Com_commit", PS_TIMER):
        assert got[name] == sum(p.values.get(name, 0) for p in samples if lo <= p.ts <= hi), name
