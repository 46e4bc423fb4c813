"""Retention drops whole partitions older than each limit, and nothing younger."""

from datetime import timedelta

import pytest

from store import compaction, partitions, query, read_full, read_rollups, retention, rollup_days
from store.catalog import server_metrics
from store.ingest import write_samples
from store.points import datetimes
from testing.store import T0, polls

pytestmark = pytest.mark.django_db
NOW = T0 + timedelta(days=30)


def ages(days: float) -> list:
    return polls(1, 30, t0=NOW - timedelta(days=days))


def stored_times(level: str, start, end) -> list:
    infos = [m for m in server_metrics([1]) if m.name == "Threads_running"]
    if level == "full":
        found = read_full.read(1, infos, start, end)
        return datetimes(found[infos[0].id].ts) if found else []
    return read_rollups.read(1, infos, level, start, end)[infos[0].id]["idx"].tolist()


def test_it_drops_only_what_is_older_than_the_limits(settings):
    settings.STORE_ROLLUP_1M_RETENTION_DAYS = 15
    old, kept, edge = ages(20), ages(10), ages(14 - 1 / 24)  # edge: 13 days 23 hours old
    write_samples(old + kept + edge)
    compaction.compact_closed(NOW)
    assert rollup_days.roll_closed(NOW) == 3  # three closed days of 1-hour rollups
    dropped = retention.apply(NOW)
    assert any(n.startswith(partitions.BLOCK_SERIES.table) for n in dropped)

    def window(samples):
        return samples[0].ts, samples[-1].ts

    assert stored_times("full", *window(old)) == []
    assert [t for t in stored_times("full", *window(kept))] == [s.ts for s in kept]
    assert [t for t in stored_times("full", *window(edge))] == [s.ts for s in edge]
    assert stored_times("1m", *window(old)) == []  # 1-minute rollups kept 15 days here
    assert len(stored_times("1m", *window(kept))) == 4  # 10:00 to 10:04:50: the 10:04 minute is not whole
    assert len(stored_times("1h", *window(old))) == 1  # 1-hour rollups are kept two years
    assert not any(n.startswith("store_rollup_1h") for n in dropped)
    # the chart of an expired range still shows something: the 1-hour min and max
    (s,) = query.series([1], ["Threads_running"], *window(old))
    assert s.values == [1, 5]
