"""A read view released between two polls, before purge began: the history still at its peak, no holder now.

Seen live on the demo server: a root session held a consistent snapshot 19:48:18-19:50:48.515 under 4 rw
sessions (5 s polls); the poll at 19:50:48.857 read 150,456 (purge had not started) and found the holder gone.
The page and the mail said "Purge-bound: no transaction holds it, yet the history length grows 57,041.0 / min:
purging 0 undo records/s while DML adds 1,854/s", where the growth was the read view's and purge had had a third
of a second. Purge stopped at 0 a second while a transaction held it is no purge falling behind.
"""

from datetime import timedelta

import pytest

from alerts.readings import purge_reading
from collectors.models import TrxHolder
from testing.purge_grown import grown_polls
from testing.servers import make_server


def verdict_of(admin_client, server) -> str:
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=20000").content.decode()
    return body.split('id="purge-verdict"')[1].split("</section>")[0]


@pytest.mark.django_db
def test_a_read_view_released_just_before_the_last_poll_is_no_purge_bound(admin_client):
    server = make_server()
    polls = grown_polls(server)
    last = polls[-1]
    # Open since a minute before the first poll, seen by the poll before the last, found gone 39 ms after the
    # last poll read the history (13,000): that poll's holder read no longer saw it.
    TrxHolder.objects.create(server=server, thread_id=40, trx_key="k", user="root", host="localhost",
                             started_at=polls[0] - timedelta(minutes=1),
                             seen_at=polls[-2] + timedelta(milliseconds=39), ended_at=last + timedelta(milliseconds=39))
    verdict = verdict_of(admin_client, server)
    assert "Purge-bound" not in verdict
    assert "Released</strong> just now: thread 40, root@localhost" in verdict
    assert f"open since {polls[0] - timedelta(minutes=1):%Y-%m-%d %H:%M:%S} UTC" in verdict
    assert "grew 1,800.0 / min while it was open" in verdict and f"{last:%H:%M:%S} UTC" in verdict
    reading = purge_reading(server.pk, last, 20_000)
    assert reading.startswith("Released just now: thread 40, root@localhost") and "Purge-bound" not in reading


@pytest.mark.django_db
def test_a_short_transaction_gone_at_the_last_poll_leaves_purge_bound(admin_client):
    """A transaction of a second, open at the poll before the last only, did not make 6 minutes of growth."""
    server = make_server()
    polls = grown_polls(server)
    TrxHolder.objects.create(server=server, thread_id=41, trx_key="k", user="app", host="10.0.0.5",
                             started_at=polls[-2] - timedelta(seconds=1),
                             seen_at=polls[-2] + timedelta(milliseconds=39),
                             ended_at=polls[-1] + timedelta(milliseconds=39))
    verdict = verdict_of(admin_client, server)
    assert "Purge-bound" in verdict and "purging 0 undo records/s while DML adds 50/s" in verdict
    assert "Released" not in verdict
