"""Health and history rows of a batch, written by one upsert each: counts, merges and ring slots."""

import time
from datetime import UTC, datetime

import pytest

from collectors.batch import poll_locked, poll_servers, write_polls
from collectors.models import HISTORY_SLOTS, PollRecord, ServerHealth, TrxHolder
from collectors.record import record
from collectors.results import PollResult, SourceResult
from servers.models import Server
from testing.mariadb import free_port


def test_a_batch_counts_polls_and_failures_and_keeps_the_last_success(make_server, mariadb):
    up = make_server("up", mariadb.port)
    down = make_server("down", free_port())
    for _ in range(3):
        poll_servers([up, down], {}, only=["global_status"])
    poll_servers([up], {}, only=["pfs_waits"])  # another source: merged into the same health row
    healthy, failing = ServerHealth.objects.get(server=up), ServerHealth.objects.get(server=down)
    assert (healthy.polls, healthy.consecutive_failures, healthy.last_error) == (4, 0, "")
    assert set(healthy.sources) == {"global_status", "pfs_waits"} and healthy.sources["pfs_waits"]["ok"]
    assert healthy.last_success_at == healthy.last_poll_at
    assert (failing.polls, failing.consecutive_failures, failing.last_success_at) == (3, 3, None)
    assert "cannot connect" in failing.last_error and not failing.sources["global_status"]["ok"]
    slots = list(PollRecord.objects.filter(server=up).order_by("started_at").values_list("slot", "ok"))
    assert slots == [(1, True), (2, True), (3, True), (4, True)]
    assert PollRecord.objects.filter(server=down, ok=False).count() == 3


def test_the_history_ring_wraps_and_overwrites_its_oldest_slot(make_server, mariadb):
    server = make_server("ring", mariadb.port)
    poll_servers([server], {}, only=["global_status"])
    ServerHealth.objects.filter(server=server).update(polls=HISTORY_SLOTS - 1)  # as if an hour had passed
    poll_servers([server], {}, only=["global_status"])
    poll_servers([server], {}, only=["global_status"])
    rows = dict(PollRecord.objects.filter(server=server).values_list("slot", "started_at"))
    assert sorted(rows) == [0, 1]  # slot 1 was the first poll's, then overwritten by the 361st
    assert rows[1] > rows[0]
    assert ServerHealth.objects.get(server=server).polls == HISTORY_SLOTS + 1


@pytest.mark.django_db(transaction=True)  # autocommit, as the worker writes: Django's foreign keys are deferred
def test_a_server_deleted_between_its_poll_and_the_write_loses_only_its_rows(make_server, mariadb):
    gone, kept = make_server("gone", mariadb.port), make_server("kept", mariadb.port)
    Server.objects.filter(pk=kept.pk).update(version="0.0")  # as detected before an upgrade
    kept.version = "0.0"
    conn = mariadb.connect()  # a transaction 2 s old: each poll sees a holder worth a row
    try:
        with conn.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        time.sleep(2.2)
        results = poll_locked([gone, kept], {gone.pk, kept.pk}, {}, ["global_status", "oldest_trx"])
    finally:
        conn.close()
    assert all(r.ok for r in results)
    Server.objects.filter(pk=gone.pk).delete()  # the admin deletes it while the batch polled
    write_polls([gone, kept], results)
    health = ServerHealth.objects.get(server=kept)
    assert (health.polls, health.consecutive_failures) == (1, 0)
    assert PollRecord.objects.filter(server=kept, ok=True).count() == 1
    assert TrxHolder.objects.filter(server=kept, ended_at=None).count() == 1
    assert Server.objects.get(pk=kept.pk).version not in ("", "0.0")
    assert not ServerHealth.objects.filter(server_id=gone.pk).exists()
    assert not TrxHolder.objects.filter(server_id=gone.pk).exists()


def test_a_polls_times_texts_and_floats_come_back_from_the_health_and_history_rows_as_written(make_server):
    server = make_server("exact", 3306)
    at, due = datetime(2026, 11, 28, 5, 6, 7, 123456, UTC), datetime(2026, 11, 28, 5, 6, 6, 999999, UTC)
    said = 'refused: "no" \\ \'it\' é ü 日本'
    ran = PollResult(server.pk, "exact", at, due, duration_ms=0, sources=[
        SourceResult("global_status", "ok", 1.2345678), SourceResult("node_exporter", "failed", 2.0, error=said)])
    record([server], [ran])
    later = datetime(2026, 11, 28, 5, 6, 17, 1, UTC)
    down = PollResult(server.pk, "exact", later, connect_error="cannot connect: 'x'", unconfigured=["node_exporter"])
    record([server], [down])

    health = ServerHealth.objects.get(server=server)
    assert (health.polls, health.consecutive_failures, health.last_error) == (2, 1, "cannot connect: 'x'")
    assert (health.last_poll_at, health.last_success_at) == (later, at)
    assert (health.last_duration_ms, health.last_lag_ms) == (0.0, None)
    # the unconfigured source's entry is forgotten; the other is kept from the first poll, with "worked"
    assert health.sources == {"global_status": {"status": "ok", "ok": True, "error": "", "duration_ms": 1.235,
                                                "at": "2026-11-28T05:06:07.123456+00:00", "worked": True}}
    first, second = PollRecord.objects.filter(server=server).order_by("slot")
    assert (first.slot, first.started_at, first.due_at, first.ok, first.error) == (1, at, due, True, said)
    assert first.lag_ms == 123.457 and first.duration_ms == 0.0  # 07.123456 - 06.999999 s, in ms
    assert first.sources["node_exporter"] == {"status": "failed", "ok": False, "error": said, "duration_ms": 2.0}
    assert (second.slot, second.started_at, second.due_at, second.lag_ms, second.ok) == (2, later, None, None, False)
    assert second.sources == {}
