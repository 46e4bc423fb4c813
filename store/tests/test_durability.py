"""PostgreSQL restarting mid-collection leaves no hole; an overflowing buffer records a gap."""

from datetime import UTC, datetime, timedelta

import pytest

from store import buffer, maintenance, query
from store.ingest import write_samples
from testing.postgres import restart_postgres, stop_postgres
from testing.store import polls

# Recent polls: maintain() (compaction and retention with the real clock) must keep them.
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)

@pytest.fixture
def postgres_down():
    stop_postgres()
    yield
    restart_postgres()  # also if the test failed


@pytest.mark.django_db(transaction=True)
def test_it_leaves_no_hole_when_postgres_restarts_mid_collection(store_tables_cleanup):
    samples = polls(31, 90, t0=T0)
    write_samples(samples[:30])
    stop_postgres()
    try:
        for s in samples[30:60]:  # polls keep coming while PostgreSQL is down
            write_samples([s])
        assert buffer.client().llen(buffer.KEY) == 30
    finally:
        restart_postgres()
    for s in samples[60:]:  # the first write after the restart flushes the buffer
        write_samples([s])
    assert not buffer.pending()
    (s,) = query.series([31], ["Threads_running"], T0, T0 + timedelta(hours=1))
    assert s.ts == [p.ts for p in samples]
    assert query.gaps(31, T0, T0 + timedelta(hours=1)) == []


@pytest.mark.django_db(transaction=True)
def test_it_records_a_gap_when_the_buffer_overflows(settings, store_tables_cleanup):
    settings.STORE_BUFFER_MAX_SAMPLES = 20
    samples = polls(32, 60, t0=T0)
    write_samples(samples[:10])
    stop_postgres()
    try:
        for s in samples[10:50]:
            write_samples([s])
        assert [g[:3] for g in buffer.pending_gaps()] == [(32, samples[10].ts, samples[29].ts)]
    finally:
        restart_postgres()
    pending = query.gaps(32, T0, T0 + timedelta(hours=1))  # visible before it is saved
    assert [(g[0], g[1]) for g in pending] == [(samples[10].ts, samples[29].ts)]
    assert "(20 samples)" in pending[0][2]
    assert maintenance.run()["flushed"] == 20
    write_samples(samples[50:])
    (s,) = query.series([32], ["Threads_running"], T0, T0 + timedelta(hours=1))
    assert [t for t, v in zip(s.ts, s.values, strict=True) if v is not None] == [
        p.ts for p in samples[:10] + samples[30:]]
    assert s.values[10] is None  # the dropped polls are a hole: the line breaks there
    assert query.gaps(32, T0, T0 + timedelta(hours=1)) == pending
    assert buffer.pending_gaps() == []
