"""query.poll_columns reads each source's metrics as one matrix of its polls: every value as written."""

import math
from datetime import timedelta

import numpy as np
import pytest

from store import compaction, query
from store.ingest import write_samples
from store.points import micros
from store.sample import Sample
from testing.store import PS_TIMER, T0, poll

pytestmark = pytest.mark.django_db
LATER = T0 + timedelta(days=1)


def varied(i: int, source: str = "global_status", step: int = 10) -> Sample:
    """poll(i) with a counter missing at some polls, a metric that appears later and a fraction now and then;
    another source's polls come 5 s after global_status's, its names prefixed with its own."""
    s = poll(1, i, source=source, step=step, t0=T0 if source == "global_status" else T0 + timedelta(seconds=5))
    values = dict(s.values)
    if i % 7 == 3:
        values.pop("Com_rollback", None)
    if i >= 500:
        values["Innodb_new"] = i
    if i % 50 == 5:
        values["load"] = 0.1 * i
    prefix = "" if source == "global_status" else f"{source}:"
    return Sample(1, source, s.ts, s.interval, {prefix + k: v for k, v in values.items()},
                  frozenset(prefix + k for k in s.counters & set(values)))


def written(samples: list[Sample], name: str, lo: int, hi: int) -> tuple[list[int], list[float]]:
    """The polls (microseconds) at which a metric was written in [lo, hi], and its values as floats."""
    found = [(micros(s.ts), float(s.values[name])) for s in samples if name in s.values and lo <= micros(s.ts) <= hi]
    return [t for t, _ in found], [v for _, v in found]


def check(samples: dict[str, list[Sample]], lo, hi) -> None:
    found = query.poll_columns(1, ["*"], lo, hi).sources
    assert len(found) == len(samples)
    for m in found:
        source = next(src for src, ss in samples.items() if micros(ss[0].ts) % 10_000_000 == m.ts[0] % 10_000_000)
        mine = [s for s in samples[source] if micros(lo) <= micros(s.ts) <= micros(hi)]
        assert m.ts.tolist() == [micros(s.ts) for s in mine]
        assert m.iv.tolist() == [-1 if s.interval is None else round(s.interval * 1000) for s in mine]
        assert sorted(m.names) == sorted({n for s in mine for n in s.values})
        for j, name in enumerate(m.names):
            present = ~np.isnan(m.values[:, j])
            assert (m.ts[present].tolist(), m.values[present, j].tolist()) == written(mine, name, micros(lo),
                                                                                       micros(hi)), name
            assert m.counter[j] == any(name in s.counters for s in mine), name


def test_it_reads_hot_rows_and_compacted_hours_as_one_matrix_a_source():
    status = [varied(i) for i in range(900)]  # 2.5 hours at 10 s
    metrics = [varied(i, "innodb_metrics", 30) for i in range(300)]  # another source, polled every 30 s
    write_samples(status + metrics)
    compaction.compact_closed(T0 + timedelta(hours=2, minutes=10))  # two hours compacted, the rest hot
    samples = {"global_status": status, "innodb_metrics": metrics}
    check(samples, T0, T0 + timedelta(hours=3))
    check(samples, T0 + timedelta(minutes=17, seconds=5), T0 + timedelta(hours=2, minutes=3))  # cut mid-hour
    check(samples, T0 + timedelta(hours=1, minutes=30), T0 + timedelta(hours=1, minutes=40))  # compacted only
    assert query.poll_columns(1, ["*"], T0 - timedelta(hours=3), T0 - timedelta(hours=2)) == query.Polled([], [])


def test_it_keeps_fractions_and_the_exactness_of_float64():
    samples = [varied(i) for i in range(40)]
    write_samples(samples)
    (m,) = query.poll_columns(1, ["load", PS_TIMER], T0, LATER).sources
    assert sorted(m.names) == sorted(["load", PS_TIMER])
    load = m.values[:, m.names.index("load")]
    assert load.tolist() == [s.values["load"] for s in samples]
    timer = m.values[:, m.names.index(PS_TIMER)]
    assert math.isnan(timer[0]) and timer[1] == float(5 * 10**15 + 123_456_789)



def test_it_leaves_out_a_source_whose_polls_are_stored_twice():
    samples = [varied(i) for i in range(400)]
    write_samples(samples)
    compaction.compact_closed(T0 + timedelta(hours=2, minutes=10))
    write_samples(samples[100:103])  # three polls written again after their hour was compacted: held twice
    held_twice = query.poll_columns(1, ["*"], T0, T0 + timedelta(hours=2))
    assert held_twice.sources == []  # read_full merges them instead
    assert held_twice.left_out == sorted(samples[0].values.keys() | samples[-1].values.keys())
    (m,) = query.poll_columns(1, ["*"], T0 + timedelta(hours=1), T0 + timedelta(hours=2)).sources  # not here
    assert m.ts.tolist() == [micros(s.ts) for s in samples[360:]]
