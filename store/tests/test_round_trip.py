"""What the collectors write comes back exactly, through the query API."""

from datetime import timedelta

import pytest

from store import query
from store.ingest import write_samples
from testing.store import T0, poll, polls

pytestmark = pytest.mark.django_db


def test_it_returns_raw_ranges_exactly():
    samples = polls(1, 60)
    write_samples(samples)
    end = T0 + timedelta(minutes=10)
    got = {s.metric: s for s in query.series([1], ["*"], T0, end, mode="delta")}
    assert set(got) == set(samples[1].values)
    for name in samples[1].values:
        expected = [(s.ts, s.values[name]) for s in samples if name in s.values]
        assert list(zip(got[name].ts, got[name].values, strict=True)) == expected, name
    assert got["Com_select"].kind == "counter" and got["Threads_running"].kind == "gauge"


def test_it_gives_counters_as_rates_and_gauges_as_values():
    write_samples(polls(1, 5))
    got = {s.metric: s for s in query.series([1], ["Com_select", "Threads_*"], T0, T0 + timedelta(hours=1))}
    assert got["Com_select"].values == [poll(1, i).values["Com_select"] / 10 for i in range(1, 5)]
    assert got["Threads_running"].values == [1, 2, 3, 4, 5]
    assert all(t.tzinfo is not None for t in got["Com_select"].ts)


def test_it_sums_picosecond_counters_exactly_beyond_64_bits():
    samples = polls(1, 2000)
    write_samples(samples)
    name = "wait.time_ps:wait/io/file/innodb/innodb_data_file"
    expected = sum(s.values[name] for s in samples if name in s.values)
    assert expected > 2**63
    got = query.totals(1, ["wait.time_ps:*", "Com_commit", "Threads_running"], T0, T0 + timedelta(days=1))
    assert got[name] == expected and isinstance(got[name], int)
    assert got["Com_commit"] == sum(s.values.get("Com_commit", 0) for s in samples)
    assert "Threads_running" not in got  # gauges have no total


def test_it_never_returns_more_than_max_points_and_keeps_extremes():
    samples = polls(1, 1000)
    write_samples(samples)
    (s,) = query.series([1], ["Com_select"], T0, T0 + timedelta(days=1), max_points=50, mode="delta")
    raw = [p.values["Com_select"] for p in samples[1:]]
    assert len(s.values) <= 50
    assert max(s.values) == max(raw) and min(s.values) == min(raw)


def test_it_gives_latest_values_names_and_keeps_servers_apart():
    write_samples(polls(1, 4) + polls(2, 3))
    got = query.latest([1, 2], ["Com_select", "Threads_running"])
    assert got[(1, "Threads_running")] == (T0 + timedelta(seconds=30), 4.0)
    assert got[(2, "Com_select")] == (T0 + timedelta(seconds=20), poll(2, 2).values["Com_select"] / 10)
    assert query.metric_names(1, "Com_*") == ["Com_commit", "Com_rollback", "Com_select"]
    assert query.metric_names(3) == []


def test_it_keeps_a_new_layout_when_a_server_version_brings_new_metrics():
    write_samples(polls(1, 3))
    newer = poll(1, 3)
    newer = type(newer)(1, newer.source, newer.ts, 10.0, newer.values | {"Innodb_new": 7, "ratio": 2.5},
                        newer.counters)
    write_samples([newer])
    got = {s.metric: s for s in query.series([1], ["*"], T0, T0 + timedelta(hours=1), mode="delta")}
    assert got["Innodb_new"].values == [7] and got["ratio"].values == [2.5]
    assert got["Com_select"].values == [poll(1, i).values["Com_select"] for i in (1, 2, 3)]


def test_it_switches_a_slot_to_float_when_an_integer_metric_turns_fractional():
    write_samples(polls(1, 3))
    s = poll(1, 3)
    write_samples([type(s)(1, s.source, s.ts, 10.0, s.values | {"Threads_running": 1.5}, s.counters)])
    (got,) = query.series([1], ["Threads_running"], T0, T0 + timedelta(hours=1))
    assert got.values == [1, 2, 3, 1.5]


def test_it_keeps_microseconds_of_poll_times():
    samples = polls(1, 5, t0=T0 + timedelta(microseconds=123_457))
    write_samples(samples)
    (s,) = query.series([1], ["Threads_running"], T0, T0 + timedelta(hours=1))
    assert s.ts == [p.ts for p in samples] and s.ts[0].microsecond == 123_457


def test_it_takes_numpy_numbers_huge_integers_and_non_finite_floats():
    import numpy as np

    s = poll(1, 1)
    odd = {"np_int": np.int64(7), "flag": True, "huge": 2**70, "nan": float("nan"), "inf": float("inf")}
    write_samples([type(s)(1, s.source, s.ts, 10.0, s.values | odd, s.counters)])
    found = query.series([1], ["np_int", "flag", "huge", "inf"], T0, T0 + timedelta(hours=1))
    got = {x.metric: x.values for x in found}
    assert got == {"np_int": [7], "flag": [1], "huge": [float(2**70)], "inf": [float("inf")]}
    assert query.metric_names(1, "nan") == ["nan"]  # stored, but a NaN is no point to draw


def test_it_names_matching_metrics_even_for_an_empty_range():
    write_samples(polls(1, 5) + polls(2, 5))
    found = query.series([1, 2], ["Com_*", "absent"], T0, T0, max_points=2)
    assert {(s.server_id, s.metric, s.kind) for s in found} == {
        (sid, name, "counter") for sid in (1, 2) for name in ("Com_commit", "Com_rollback", "Com_select")}
    assert all(s.ts == [] and s.values == [] for s in found)
    (one,) = query.series([1], ["Threads_running"], T0, T0 + timedelta(minutes=1), max_points=1)
    assert one.values == [5]


def test_whole_floats_in_integer_slots_come_back_as_integers_wherever_they_move():
    # A status read as "0.000000" is a whole float: its integer slot takes it as an int, the poll where another
    # slot holds the float and the poll where a float turns fractional (the slot turns float) as well.
    s = poll(1, 1)
    first = {"a": 1, "b": 2.0, "c": 3}
    rows = [first, {"a": 4.0, "b": 5, "c": 6.0}, {"a": 7.0, "b": 8.0, "c": 9}, {"a": 10, "b": 11.5, "c": 12.0}]
    for i, values in enumerate(rows):
        write_samples([type(s)(1, "floats", T0 + timedelta(seconds=10 * i), 10.0, values, frozenset())])
    got = {x.metric: x.values for x in query.series([1], ["a", "b", "c"], T0, T0 + timedelta(hours=1))}
    assert got == {"a": [1, 4, 7, 10], "b": [2, 5, 8, 11.5], "c": [3, 6, 9, 12]}
