"""The purge verdict reads the holders of the polls it looks back over in one statement, not one a poll.

Counted before: the page read the holders table 10 times where a release was found 8 polls back (once for the
holders table, once for the last poll, once for each of the 8 polls before it: reads.released_at), and 10 times on
a flat history above the threshold with no holder (reads.released_at_turn, the 8 polls from the turn). Bounded by
RELEASE_POLLS, not by the range, but each a round trip: now 3, whatever the polls looked at.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.purge_grown import grown_polls
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def holder_reads(admin_client, server) -> tuple[int, str]:
    """The statements on the holders table while the purge page answers, and its verdict."""
    with CaptureQueriesContext(connection) as ctx:
        body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=5000").content.decode()
    reads = sum('FROM "collectors_trxholder"' in q["sql"] for q in ctx.captured_queries)
    return reads, body.split('id="purge-verdict"')[1].split("</section>")[0]


def test_a_release_eight_polls_back_reads_the_holders_three_times(admin_client):
    server = make_server()
    polls = grown_polls(server)
    # Open since a minute before the first poll, seen by polls[-9], found gone 39 ms after polls[-8] read the history.
    TrxHolder.objects.create(server=server, thread_id=40, trx_key="k", user="root", host="localhost",
                             started_at=polls[0] - timedelta(minutes=1),
                             seen_at=polls[-9] + timedelta(milliseconds=39),
                             ended_at=polls[-8] + timedelta(milliseconds=39))
    reads, verdict = holder_reads(admin_client, server)
    assert "Released</strong> 7 polls ago: thread 40, root@localhost" in verdict
    assert reads == 3  # the table, the last poll, the 8 polls before it


def test_a_flat_history_with_no_holder_reads_the_holders_three_times(admin_client):
    server = make_server()
    last = timezone.now().replace(microsecond=857_000) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 8200}) for t in polls)
    reads, verdict = holder_reads(admin_client, server)
    assert "<strong>Flat</strong> at 8,200, above the threshold (5,000): purge removes what is added" in verdict
    assert reads == 3  # the table, the last poll, the polls from the turn
