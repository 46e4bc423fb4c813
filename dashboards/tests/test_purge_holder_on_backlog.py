"""A read view opened on a backlog purge keeps draining holds none of it: a holder is named only where the history
grew while it was open.

A dump's or a report's transaction that starts while the history is already large (undo logs from before it, purge
draining them) was named "Held by a read view", or "while thread N holds a transaction", of a history that was
already there and only fell or stayed while it was open: purge removes everything committed before a read view was
created, so the backlog from before it is no read view's.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def jitter(i: int) -> int:
    return 60 if i % 2 else -60


def history(server, values: list[float]) -> list:
    """The values as 10 s history polls ending a second ago; their times."""
    last = timezone.now().replace(microsecond=0) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": v})
                  for t, v in zip(polls, values, strict=True))
    return polls


def opened(server, at, thread: int = 77) -> None:
    TrxHolder.objects.create(server=server, thread_id=thread, trx_key=f"k{thread}", user="backup", host="10.0.0.9",
                             started_at=at, seen_at=timezone.now())


def verdict_of(admin_client, server) -> str:
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=5000").content.decode()
    return " ".join(body.split('id="purge-verdict"')[1].split("</section>")[0].split())


def test_a_transaction_opened_on_a_draining_backlog_is_not_named_where_it_then_stays_flat(admin_client):
    """Drained 60,000 to 20,000 (2,000 a poll, 21 polls), then 20,000 +- 60 for 20 polls: purge removing the backlog
    from before the dump as fast as DML adds. The dump opened at poll 10 (40,000): the lowest poll since is 19,940,
    the last poll (i = 40) reads 19,940: it did not grow while the dump was open."""
    server = make_server()
    polls = history(server, [60_000 - 2_000 * i for i in range(21)] + [20_000 + jitter(i) for i in range(21, 41)])
    opened(server, polls[10] + timedelta(seconds=2))
    verdict = verdict_of(admin_client, server)
    assert "<strong>Flat</strong> at 19,940, above the threshold (5,000): purge removes what is added" in verdict
    assert "thread 77" not in verdict and "Held by" not in verdict
    reading = purge_reading(server.pk, polls[-1], 5_000)
    assert reading.startswith("Flat at 19,940, above the threshold (5,000)") and "thread 77" not in reading


def test_a_transaction_open_while_the_history_grew_is_still_named_where_it_then_stays_flat(admin_client):
    """The same flat 20,000 +- 60, reached by a climb of 2,000 a poll from 0 while the transaction was open (since
    poll 0, at 0): purge cannot go below its read view, and the page names it, as before."""
    server = make_server()
    polls = history(server, [2_000.0 * i for i in range(11)] + [20_000 + jitter(i) for i in range(11, 41)])
    opened(server, polls[0] + timedelta(seconds=2))
    verdict = verdict_of(admin_client, server)
    assert "<strong>Flat</strong> at 19,940, above the threshold (5,000) while thread 77 (backup@10.0.0.9)" in verdict


def test_a_transaction_opened_on_a_drain_that_fell_further_is_no_holder(admin_client):
    """Drained 90,000 by 4,000 a poll to 10,000 (poll 20), then 2,000 (a fall below a quarter: a turn, too recent
    for a pace). The transaction opened at poll 12 (42,000): the history fell while it was open. The page said "Held
    by a read view: thread 77 ... the history length is 2,000"; the fall carries the drain on."""
    server = make_server()
    polls = history(server, [90_000 - 4_000 * i for i in range(21)] + [2_000])
    opened(server, polls[12] + timedelta(seconds=2))
    verdict = verdict_of(admin_client, server)
    assert "Held by" not in verdict and "thread 77" not in verdict
    assert "<strong>Still draining</strong>: fell from 10,000 to 2,000" in verdict
