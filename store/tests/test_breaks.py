"""Holes in a series: no poll for more than ~1.5 intervals is a break (None), never a line across."""

from datetime import UTC, datetime, timedelta

import pytest

from store import query
from store.ingest import write_samples
from store.sample import Sample

pytestmark = pytest.mark.django_db
# Recent, so the full-resolution samples and the minute rollups are within retention.
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)


def tps_polls(server_id: int, seconds: list[int], per_poll: int = 50) -> list[Sample]:
    """Polls at these offsets (s from T0): the first has no delta; each delta spans since the last poll."""
    out = [Sample(server_id, "global_status", T0 + timedelta(seconds=seconds[0]), None, {"Threads_running": 3})]
    for prev, now in zip(seconds, seconds[1:], strict=False):
        out.append(Sample(server_id, "global_status", T0 + timedelta(seconds=now), float(now - prev),
                          {"tps": per_poll * (now - prev), "Threads_running": 3}, frozenset({"tps"})))
    return out


# Polls every 10 s, then a 10-minute outage (no poll from 100 s to 700 s), then every 10 s again.
OFFSETS = list(range(0, 101, 10)) + list(range(700, 801, 10))


def test_an_outage_is_a_break_in_a_gauge_and_a_counter():
    write_samples(tps_polls(7, OFFSETS))
    found = {s.metric: s for s in query.series([7], ["tps", "Threads_running"], T0, T0 + timedelta(seconds=800))}
    gauge, rate = found["Threads_running"], found["tps"]
    hole = gauge.values.index(None)
    assert gauge.ts[hole - 1] == T0 + timedelta(seconds=100) and gauge.ts[hole + 1] == T0 + timedelta(seconds=700)
    assert gauge.values.count(None) == 1 and len(gauge.values) == len(OFFSETS) + 1
    # The 700 s poll's delta spans the outage: an average over it, not a reading, so it is not drawn.
    hole = rate.values.index(None)
    assert rate.ts[hole - 1] == T0 + timedelta(seconds=100) and rate.ts[hole + 1] == T0 + timedelta(seconds=710)
    assert {v for v in rate.values if v is not None} == {50.0}  # 500 per 10 s, by hand
    # Totals still count every delta, the outage's included: 50/s over 800 s.
    assert query.totals(7, ["tps"], T0, T0 + timedelta(seconds=800)) == {"tps": 50 * 800}


def test_a_break_says_where_its_outage_ended_though_a_rate_line_leaves_that_poll_out():
    write_samples(tps_polls(11, OFFSETS))
    found = {s.metric: s for s in query.series([11], ["tps", "Threads_running"], T0, T0 + timedelta(seconds=800))}
    back = T0 + timedelta(seconds=700)  # the first poll after the outage: its read ended it
    for s in found.values():
        assert list(s.resumed.values()) == [back] and list(s.resumed) == [s.ts[s.values.index(None)]]
    rate = found["tps"]
    assert rate.ts[rate.values.index(None) + 1] == T0 + timedelta(seconds=710)  # not drawn: the 700 s delta spans it
    minutes = query.series([11], ["tps"], T0, T0 + timedelta(hours=1), max_points=60)[0]  # minute rollups
    assert list(minutes.resumed.values()) == [T0 + timedelta(minutes=11)]  # the minute holding 700 s (11:40) starts


def test_jitter_is_not_a_break():
    write_samples(tps_polls(8, [0, 10, 21, 30, 41, 50, 62, 70]))
    s = query.series([8], ["Threads_running"], T0, T0 + timedelta(seconds=80))[0]
    assert None not in s.values and len(s.values) == 8


def test_a_break_survives_downsampling_and_keeps_its_edges():
    seconds = list(range(0, 3000, 10)) + list(range(3600, 6600, 10))
    write_samples(tps_polls(9, seconds))
    s = query.series([9], ["Threads_running"], T0, T0 + timedelta(seconds=6600), max_points=250)[0]
    assert len(s.values) <= 250 and s.values.count(None) == 1
    hole = s.values.index(None)
    assert (s.ts[hole - 1], s.ts[hole + 1]) == (T0 + timedelta(seconds=2990), T0 + timedelta(seconds=3600))


def test_a_missing_minute_bucket_is_a_break():
    seconds = list(range(0, 1800, 10)) + list(range(2400, 4200, 10))  # 10 minutes without polls
    write_samples(tps_polls(10, seconds))
    s = query.series([10], ["Threads_running"], T0, T0 + timedelta(seconds=4200), max_points=60)[0]
    assert s.values.count(None) == 1
    hole = s.values.index(None)
    assert s.ts[hole - 1] < T0 + timedelta(seconds=1800) and s.ts[hole + 1] >= T0 + timedelta(seconds=2400)
