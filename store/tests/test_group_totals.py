"""Counters' totals summed for all metrics at once equal each metric's own exact sum, at every level."""

from datetime import timedelta

import numpy as np
import pytest

from store import codec, compaction, hot_sums, query, read_rollups
from store.catalog import server_metrics
from store.exact_sums import exact_sum, group_sums
from store.ingest import write_samples
from store.sample import Sample
from testing.store import PS_TIMER, T0, poll

STEP = 10
END = T0 + timedelta(hours=3, minutes=20)  # 13:00-13:20 stays hot
OUTAGE = (T0 + timedelta(hours=1, minutes=10), T0 + timedelta(hours=1, minutes=25))  # no poll in between
RESET = T0 + timedelta(hours=2, minutes=5)  # the server restarted: that poll has no deltas
NEW_FROM = T0 + timedelta(minutes=97)  # a counter first seen mid-range


def test_group_sums_are_the_per_array_sums():
    rng = np.random.default_rng(7)
    big = np.full(5000, 2**62 + 12345, np.int64)  # their sum is far beyond 64 bits
    groups = [
        [big, rng.integers(-(2**40), 2**40, 300)],
        [],
        [np.empty(0, np.int64)],
        [rng.integers(0, 10, 50), np.array([-(2**63), 2**63 - 1], np.int64)],
        [rng.integers(0, 10, 5), rng.random(7)],  # a float part: summed in the same order as before
        [np.array([3], np.int64)],
    ]
    assert group_sums(groups) == [sum(exact_sum(a) for a in g) for g in groups]
    assert group_sums(groups)[0] == 5000 * (2**62 + 12345) + int(groups[0][1].sum())


def samples() -> list[Sample]:
    out: list[Sample] = []
    i, t = 0, T0
    while t < END:
        if not OUTAGE[0] < t < OUTAGE[1]:
            s = poll(1, i)
            s = Sample(1, s.source, t, s.interval, dict(s.values), s.counters)
            if out and out[-1].ts < OUTAGE[0] < t:
                s = Sample(1, s.source, t, (t - out[-1].ts).total_seconds(), s.values, s.counters)
            if t >= NEW_FROM and s.counters:
                s = Sample(1, s.source, t, s.interval, {**s.values, "Com_new": 1000 + i}, s.counters | {"Com_new"})
            if t == RESET:
                s = Sample(1, s.source, t, None, {k: v for k, v in s.values.items() if k not in s.counters},
                           frozenset())
            out.append(s)
        i, t = i + 1, t + timedelta(seconds=STEP)
    return out


def by_hand(written: list[Sample], start, end) -> dict[str, tuple[int | float, float]]:
    """Each counter's deltas and intervals summed over the polls with start <= ts <= end."""
    out: dict[str, tuple[int | float, float]] = {}
    for s in written:
        if start <= s.ts <= end:
            for name in s.counters:
                total, seconds = out.get(name, (0, 0.0))
                out[name] = (total + s.values[name], seconds + (s.interval or 0) * 1000)
    return {name: (total, ms / 1000) for name, (total, ms) in out.items()}


@pytest.mark.django_db
@pytest.mark.parametrize("start, end", [
    (T0, END),
    (T0 + timedelta(minutes=17, seconds=23), END - timedelta(minutes=3, seconds=1)),
    (T0 + timedelta(hours=1, seconds=5), T0 + timedelta(hours=2, minutes=59, seconds=59)),
    (NEW_FROM + timedelta(seconds=1), T0 + timedelta(hours=3, minutes=5)),
])
def test_totals_over_an_outage_a_reset_and_a_new_counter_are_the_polls_sums(start, end):
    written = samples()
    write_samples(written)
    compaction.compact_closed(END)  # every hour but the current one: rollups, blocks and hot rows read
    names = ["Com_*", PS_TIMER, "Threads_running"]
    got = query.totals_and_seconds(1, names, start, end)
    expected = by_hand(written, start, end)
    assert got == expected
    assert isinstance(got[PS_TIMER][0], int) and isinstance(got["Com_new"][0], int)
    assert "Threads_running" not in got  # gauges have no total


@pytest.mark.django_db
@pytest.mark.parametrize("start, end", [
    (T0, END),
    (T0 + timedelta(minutes=17, seconds=23), END - timedelta(minutes=3, seconds=1)),
    (NEW_FROM + timedelta(seconds=1), T0 + timedelta(hours=3, minutes=5)),
])
def test_totals_of_a_few_counters_of_a_source_are_their_polls_sums(start, end):
    """A counter or two of the hot rows' slots (a page's wait counts) are taken from those slots alone."""
    written = samples()
    write_samples(written)
    compaction.compact_closed(END)
    expected = by_hand(written, start, end)
    for names in ([PS_TIMER], ["Com_commit"], ["Com_new", "Com_select"]):
        assert query.totals_and_seconds(1, names, start, end) == {n: expected[n] for n in names}


@pytest.mark.django_db
@pytest.mark.parametrize("level", ["1m", "1h"])
def test_sums_only_reads_the_same_sums_as_the_whole_buckets(level):
    write_samples(samples())
    compaction.compact_closed(END)
    infos = server_metrics([1])
    start, end = T0 + timedelta(minutes=17, seconds=23), END
    whole = read_rollups.read(1, infos, level, start, end)
    sums = read_rollups.read(1, infos, level, start, end, sums_only=True)
    assert set(sums) == set(whole)
    for mid, b in whole.items():
        for k in ("idx", "sum", "ms"):
            assert sums[mid][k].tolist() == b[k].tolist() and sums[mid][k].dtype == b[k].dtype, (mid, k)


def test_hot_rows_bucket_sums_take_a_slot_polled_in_every_bucket_whole_and_the_others_where_polled():
    minute = 60_000_000
    deltas = [[5, None, None, 1], [7, None, None, 2], [11, 3, None, 0], [13, 4, None, 8]]  # None: not read
    ts = [10 * minute + 1, 10 * minute + 30_000_001, 11 * minute + 1, 11 * minute + 30_000_001]  # two minutes
    rows = []
    for t, row, iv in zip(ts, deltas, (30_000, 30_000, 29_000, 31_000), strict=True):
        data, _lengths = codec.varints(codec.codes(np.array([v or 0 for v in row]), np.array([v is None for v in row])))
        rows.append((t, iv, 1, data, None))
    got = hot_sums._matrix_sums(rows, [(0, 100), (1, 101), (2, 102), (3, 103)], 4, minute)
    assert sorted(got) == [100, 101, 103]  # by hand: slot 2 was never read
    assert {k: v.tolist() for k, v in got[100].items()} == {"idx": [10, 11], "sum": [12, 24], "ms": [60_000, 60_000]}
    assert {k: v.tolist() for k, v in got[101].items()} == {"idx": [11], "sum": [7], "ms": [60_000]}
    assert got[103]["sum"].tolist() == [3, 8]
    got[100]["idx"][0] = -1  # each slot's arrays its own: a caller changing one changes no other's
    assert got[103]["idx"].tolist() == [10, 11]
