"""A release stays named while purge has yet to turn the history down, for up to 8 polls after it.

Found by audit (2026-11-27): "Released just now" looked one poll back only. Where the history still grew for
a few polls after the holder went (purge not yet started on the backlog), the poll after the one that found it
gone read "Purge-bound: no transaction holds it" again, the growth of minutes under the read view taken for
purge falling behind. Purge-bound needs 8 polls of growth to be judged on its own (docs/dashboards.md, "Purge
verdict"): so many polls after the release, still growing, are purge's own.
"""

from datetime import timedelta

import pytest

from alerts.readings import purge_reading
from collectors.models import TrxHolder
from testing.purge_grown import grown_polls
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def gone_by(server, polls, k: int) -> None:
    """A holder open since a minute before the first poll, seen by the poll before polls[k], gone 39 ms after
    polls[k] read the history (that poll's holder read no longer saw it)."""
    TrxHolder.objects.create(server=server, thread_id=40, trx_key="k", user="root", host="localhost",
                             started_at=polls[0] - timedelta(minutes=1),
                             seen_at=polls[k - 1] + timedelta(milliseconds=39),
                             ended_at=polls[k] + timedelta(milliseconds=39))


def verdict_of(admin_client, server) -> str:
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=20000").content.decode()
    return body.split('id="purge-verdict"')[1].split("</section>")[0]


def test_a_release_three_polls_back_is_still_named(admin_client):
    server = make_server()
    polls = grown_polls(server)
    gone_by(server, polls, -3)  # found gone by polls[-3]; polls[-2] and polls[-1] read after it, still growing
    verdict = verdict_of(admin_client, server)
    assert "Purge-bound" not in verdict
    assert "Released</strong> 2 polls ago: thread 40, root@localhost" in verdict
    assert f"found gone by the poll at {polls[-3]:%H:%M:%S} UTC" in verdict
    assert "has not turned down in the 2 polls since" in verdict
    reading = purge_reading(server.pk, polls[-1], 20_000)
    assert reading.startswith("Released 2 polls ago: thread 40, root@localhost") and "Purge-bound" not in reading


def test_a_release_is_named_over_the_8_polls_from_the_one_that_found_it_gone(admin_client):
    server = make_server()
    polls = grown_polls(server)
    gone_by(server, polls, -8)  # polls[-8] .. polls[-1]: 8 polls, 7 after it
    assert "Released</strong> 7 polls ago: thread 40" in verdict_of(admin_client, server)


def test_growth_over_9_polls_after_a_release_is_purge_bound(admin_client):
    server = make_server()
    polls = grown_polls(server)
    gone_by(server, polls, -9)  # 9 polls from the one that found it gone: 8 of growth after it, purge's own
    verdict = verdict_of(admin_client, server)
    assert "Released" not in verdict
    assert "Purge-bound" in verdict and "purging 0 undo records/s while DML adds 50/s" in verdict
