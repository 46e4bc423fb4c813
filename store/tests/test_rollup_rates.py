"""At the rollup levels a counter's points are rates that polls measured, never a delta over a mean interval.

A 1-minute or 1-hour bucket is drawn as its lowest and highest per-poll rate
(delta over that poll's own interval). Before, its min and max deltas were
divided by the bucket's mean interval: a short poll read low, a long one high,
and the delta after an outage (left out of the full-resolution line) drew a
spike. The expected points are the per-poll rates written below, by hand.
"""

from datetime import UTC, datetime, timedelta

import pytest

from store import compaction, query
from store.ingest import write_samples
from store.sample import Sample

pytestmark = pytest.mark.django_db
# Recent, so every level is within retention; a whole hour, so that compaction can close it.
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
# (offset s from T0, the poll's rate per second): intervals of 8 to 12 s, then a 130 s outage.
POLLS = [(0, 100), (10, 100), (20, 300), (30, 100), (41, 400), (49, 100),  # minute 0: 100 to 400
         *((s, 100) for s in range(60, 121, 10)),  # minutes 1 and 2: 100 at every poll
         (250, 50),  # its interval spans the outage: an average over it, no poll's reading
         (260, 100), (272, 500), (280, 100), (290, 100),  # minute 4: 100 to 500
         (300, 100)]


def samples(server_id: int) -> list[Sample]:
    """The first poll, 10 s before T0, has no delta; each later delta covers the time since the one before."""
    out = [Sample(server_id, "global_status", T0 - timedelta(seconds=10), None, {"Threads_running": 2})]
    previous = -10
    for offset, rate in POLLS:
        seconds = offset - previous
        out.append(Sample(server_id, "global_status", T0 + timedelta(seconds=offset), float(seconds),
                          {"tps": rate * seconds, "Threads_running": 2 + offset % 7}, frozenset({"tps"})))
        previous = offset
    return out


def points(server_id: int, metric: str, span: timedelta, max_points: int) -> list[tuple[float, float | None]]:
    s = query.series([server_id], [metric], T0, T0 + span, max_points=max_points)[0]
    return [((t - T0).total_seconds(), v) for t, v in zip(s.ts, s.values, strict=True)]


MINUTE_POINTS = [(0, 100), (30, 400), (60, 100), (120, 100), None, (240, 100), (270, 500), (300, 100)]


@pytest.mark.parametrize("compacted", [False, True])
def test_a_minute_is_drawn_as_its_lowest_and_highest_measured_rate(compacted):
    write_samples(samples(21))
    if compacted:
        compaction.compact_closed(datetime.now(UTC))  # T0's hour: its 1-minute rollups are written
    got = points(21, "tps", timedelta(hours=1), max_points=60)  # a point a minute: the 1-minute rollups
    hole = next(i for i, (_t, v) in enumerate(got) if v is None)  # minute 3 had no poll
    assert [p for p in got[:hole]] + [None] + got[hole + 1:] == MINUTE_POINTS
    gauge = points(21, "Threads_running", timedelta(hours=1), max_points=60)
    read = [2 + offset % 7 for offset in (0, 10, 20, 30, 41, 49)]  # a gauge's minute: its lowest and highest value
    assert gauge[:2] == [(0, min(read)), (30, max(read))]


@pytest.mark.parametrize("compacted", [False, True])
def test_an_hour_is_drawn_as_its_lowest_and_highest_measured_rate(compacted):
    write_samples(samples(22))
    if compacted:
        compaction.compact_closed(datetime.now(UTC))  # the hour's 1-minute rollups, from which its hour is derived
    got = points(22, "tps", timedelta(hours=6), max_points=6)  # a point an hour
    measured = [rate for offset, rate in POLLS if offset != 250]
    assert got == [(0, min(measured)), (1800, max(measured))]  # 100 and 500: not 50, the outage's average


def tps_at(server_id: int, polls: list[tuple[float, float, float]]) -> list[Sample]:
    """(offset s from T0, interval s, rate per second) per poll."""
    return [Sample(server_id, "global_status", T0 + timedelta(seconds=at), seconds, {"tps": round(rate * seconds)},
                   frozenset({"tps"})) for at, seconds, rate in polls]


def test_a_lone_poll_after_an_outage_draws_no_rate_at_any_level():
    # 100/s every 10 s in T0's hour; then one poll at 1:59:55 after an hour without (30/s over the outage);
    # then 100/s every 10 s again: no poll measured 30/s.
    first = [(s, 10, 100) for s in range(10, 3600, 10)]
    lone = [(7195, 3605, 30)]
    after = [(7205 + s, 10, 100) for s in range(0, 3590, 10)]
    write_samples(tps_at(23, first + lone + after))
    compaction.compact_closed(datetime.now(UTC))  # T0's three hours (the lone poll's alone in its hour)
    for span, budget in ((timedelta(hours=4), 240), (timedelta(hours=6), 6)):  # 1-minute, then 1-hour buckets
        drawn = {v for _t, v in points(23, "tps", span, max_points=budget) if v is not None}
        assert drawn == {100.0}, (span, drawn)


def test_polls_every_minute_then_every_10_s_are_all_readings_not_outages():
    slow = [(60 * i, 60, 100) for i in range(1, 61)]  # an hour of 60 s polls at 100/s
    fast = [(3600 + 10 * i, 10, 200) for i in range(1, 361)]  # then an hour of 10 s polls at 200/s
    write_samples(tps_at(24, slow + fast))
    got = points(24, "tps", timedelta(hours=2), max_points=10_000)  # every poll
    assert [v for _t, v in got] == [100.0] * 60 + [200.0] * 360  # none taken for an outage, no hole


def test_a_range_starting_inside_a_stored_minute_leaves_that_minute_out():
    write_samples(samples(25))
    compaction.compact_closed(datetime.now(UTC))
    s = query.series([25], ["tps"], T0 + timedelta(seconds=5), T0 + timedelta(hours=1), max_points=50)[0]
    # minute 0 holds the polls at 0 s (before the range) to 49 s: not drawn; minute 1 is the first
    assert (s.ts[0] - T0).total_seconds() == 60


def test_the_rate_now_is_no_outages_average():
    polls = [(10 * i, 10, 5000) for i in range(1, 31)] + [(300 + 895, 895, 10)]  # back after 895 s: 10/s over it
    write_samples(tps_at(26, polls))
    assert query.latest([26], ["tps"]) == {}  # until the next poll, no rate of now was measured
    write_samples(tps_at(26, [(1205, 10, 4000)]))
    assert query.latest([26], ["tps"]) == {(26, "tps"): (T0 + timedelta(seconds=1205), 4000.0)}
