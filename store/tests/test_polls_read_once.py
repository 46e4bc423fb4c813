"""One read of a range's polls (query.polls) answers as the store's own reads of that range do."""

from datetime import timedelta

import pytest

from store import compaction, query
from store.ingest import write_samples
from store.sample import Sample
from testing.store import PS_TIMER, T0, poll

STEP = 10
END = T0 + timedelta(hours=2, minutes=20)  # 12:00-12:20 stays hot
OUTAGE = (T0 + timedelta(minutes=70), T0 + timedelta(minutes=85))  # no poll in between
COUNTERS = ["Com_*", PS_TIMER]
READ = [*COUNTERS, "Threads_running", "load"]


def samples() -> list[Sample]:
    out: list[Sample] = []
    for i in range(int((END - T0).total_seconds()) // STEP + 1):
        s = poll(1, i)
        if OUTAGE[0] < s.ts < OUTAGE[1]:
            continue
        if out and out[-1].ts < OUTAGE[0] < s.ts:  # the poll after the outage: its delta spans it
            s = Sample(1, s.source, s.ts, (s.ts - out[-1].ts).total_seconds(), s.values, s.counters)
        out.append(s)
    return out


def by_hand(written: list[Sample], start, end) -> dict[str, tuple[int, float]]:
    """Each counter's deltas and intervals summed over the polls with start <= ts <= end."""
    out: dict[str, tuple[int, int]] = {}
    for s in written:
        if start <= s.ts <= end:
            for name in s.counters:
                total, ms = out.get(name, (0, 0))
                out[name] = (total + int(s.values[name]), ms + round((s.interval or 0) * 1000))
    return {name: (total, ms / 1000) for name, (total, ms) in out.items()}


@pytest.fixture
def written() -> list[Sample]:
    found = samples()
    write_samples(found)
    compaction.compact_closed(END)  # blocks and rollups for the closed hours, hot rows for the last
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("start, end", [
    (T0, END),
    (T0 + timedelta(minutes=17, seconds=23), END - timedelta(minutes=3, seconds=1)),
    (T0 + timedelta(hours=1, seconds=5), T0 + timedelta(hours=1, minutes=59, seconds=59)),
    (T0 + timedelta(minutes=71), T0 + timedelta(minutes=86)),
])
def test_it_sums_a_range_inside_the_read_as_the_polls_add_up(written, start, end):
    read = query.polls(1, READ, T0, END)
    got = read.totals_and_seconds(COUNTERS, start, end)
    assert got == by_hand(written, start, end)
    assert got == query.totals_and_seconds(1, COUNTERS, start, end)  # the rollups' exact sums in the middle
    assert "load" not in read.totals_and_seconds(READ, start, end)  # a gauge has no total


@pytest.mark.django_db
def test_it_answers_within_samples_and_arrays_as_their_own_reads(written):
    start = T0 + timedelta(minutes=50, seconds=5)
    read = query.polls(1, READ, start, END)
    within = read.within(["Com_select", "Threads_running"])
    assert within == query.within(1, ["Com_select", "Threads_running"], start, END)
    assert within[0].ts[0] == start + timedelta(seconds=15)  # the poll at :10 began before the start
    assert read.counter_samples([PS_TIMER]) == query.counter_samples(1, [PS_TIMER], start, END)
    mine, own = read.counter_arrays(COUNTERS), query.counter_arrays(1, COUNTERS, start, END)
    assert sorted(mine) == sorted(own) == ["Com_commit", "Com_rollback", "Com_select", PS_TIMER]
    for name, arrays in own.items():
        assert mine[name].deltas.tolist() == arrays.deltas.tolist()
        assert mine[name].seconds.tolist() == arrays.seconds.tolist()


@pytest.mark.django_db
def test_it_refuses_what_it_did_not_read(written):
    read = query.polls(1, ["Com_select", "wait.time_ps:*"], T0 + timedelta(hours=1), END)
    assert read.covers(["Com_select", PS_TIMER]) and not read.covers(["Com_commit"])
    assert not read.covers(["wait.count:*"])
    with pytest.raises(ValueError):
        read.counter_arrays(["Com_commit"])
    with pytest.raises(ValueError):
        read.totals_and_seconds(["Com_select"], T0, END)  # begins before the polls read
