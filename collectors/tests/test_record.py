"""Health and history rows of a batch, written by one upsert each: counts, merges and ring slots."""

import time

import pytest

from collectors.batch import poll_locked, poll_servers, write_polls
from collectors.models import HISTORY_SLOTS, PollRecord, ServerHealth, TrxHolder
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
