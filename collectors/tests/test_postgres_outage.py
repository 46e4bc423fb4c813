"""PostgreSQL stopped mid-collection: dispatch and polls go on, and every poll's samples are kept."""

import logging
import time
from datetime import UTC, datetime

import pytest
from django.db import connection

from collectors import fleet_cache, record, registry_outage, schedule
from collectors.tasks import dispatch_due_polls, poll_batch
from servers.models import Server
from store import buffer, ingest
from testing.postgres import restart_postgres, stop_postgres
from testing.store import truncate_tables

OUTAGE_POLLS = 3


def stored_stamps(server_id: int) -> list[datetime]:
    """When the global status samples (read on every poll) of this server were taken."""
    with connection.cursor() as cur:
        cur.execute("SELECT r.ts FROM store_raw r JOIN store_source s ON s.id = r.source_id "
                    "WHERE r.server_id = %s AND s.name = 'global_status' ORDER BY r.ts", [server_id])
        return [row[0] for row in cur.fetchall()]


def tick(server_id: int) -> float:
    """One beat tick and the batch it dispatched, as the worker would run it; returns when it polled."""
    now = time.time()
    assert dispatch_due_polls(now) == 1  # old code: OperationalError, no poll at all
    assert poll_batch([server_id], [now]) == 1
    time.sleep(1.05)  # the next poll is due one interval later
    return now


@pytest.fixture
def clean_store():
    buffer.client().delete(buffer.KEY, buffer.INFLIGHT, buffer.GAPS, buffer.NEWEST, schedule.DUE_KEY)
    fleet_cache._kept = ""  # a fresh process: the first read keeps its copy
    for outage in (registry_outage.OUTAGE, ingest.BUFFERING, record.HEALTH_UNRECORDED):
        outage.said_at = None
    yield
    truncate_tables()


@pytest.mark.django_db(transaction=True)
def test_polls_go_on_through_an_outage_and_every_sample_is_kept(mariadb, clean_store):
    server = Server(name="outage", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = "s3cret!"
    server.save()
    assert dispatch_due_polls(time.time()) == 0  # the first tick schedules it within its interval
    time.sleep(1.05)
    before = [tick(server.id)]
    stop_postgres()
    try:
        during = [tick(server.id) for _ in range(OUTAGE_POLLS)]
        assert buffer.client().llen(buffer.KEY) > 0  # the samples wait in Redis
    finally:
        restart_postgres()
    after = [tick(server.id)]  # the first write after the outage flushes the buffer, oldest first
    stamps = stored_stamps(server.id)
    assert len(stamps) == 1 + OUTAGE_POLLS + 1
    polled = before + during + after
    for stamp, at in zip(stamps, polled, strict=True):  # each sample within its poll's second
        assert abs(stamp.timestamp() - at) < 1.0, (stamp, datetime.fromtimestamp(at, UTC))
    assert not buffer.pending()


@pytest.mark.django_db(transaction=True)
def test_an_outage_is_said_once_not_at_every_tick_and_batch(mariadb, clean_store, caplog):
    server = Server(name="outage-said", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = "s3cret!"
    server.save()
    assert dispatch_due_polls(time.time()) == 0
    time.sleep(1.05)
    tick(server.id)
    stop_postgres()
    try:
        with caplog.at_level(logging.WARNING, logger="collectors.fleet_cache"):
            for _ in range(3):  # three ticks, three batches: six registry reads from the copy
                tick(server.id)
    finally:
        restart_postgres()
    with caplog.at_level(logging.WARNING, logger="collectors.fleet_cache"):
        tick(server.id)
    said = [r.getMessage() for r in caplog.records if r.name == "collectors.fleet_cache"]
    assert len(said) == 2, said
    assert said[0].startswith("collectors: PostgreSQL unreachable (") and "\n" not in said[0]
    assert "trying PostgreSQL again at every dispatch tick (1 s)" in said[0]
    assert said[1] == "collectors: PostgreSQL answers again; the registry is read from it"
    # The store's buffering and the batches' health: a line each as the outage starts (the three batches' samples
    # and polls counted from the first), one as it ends; the old code said both at every batch.
    for name, counted, back in (
            ("store.ingest", "buffering samples in Redis (samples since", "the samples buffered in Redis"),
            ("collectors.record", "polls since the last line: 1 ", "health of polls recorded")):
        lines = [r.getMessage() for r in caplog.records if r.name == name]
        assert len(lines) == 2 and counted in lines[0] and back in lines[1], lines
        assert "\n" not in lines[0]
