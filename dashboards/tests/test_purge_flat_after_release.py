"""A history that went flat when its read view was released names the release: the backlog that stays is the
read view's. Before, the verdict read "Flat at 8,200, above the threshold (5,000): purge removes what is added and
no more, so the backlog stays", the transaction that grew it (gone a minute before) not named."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.purge_grown import PURGED
from testing.servers import make_server

pytestmark = pytest.mark.django_db
TURN = 24  # the poll the history stops growing at


def grown_then_flat(server) -> list:
    """41 polls 10 s apart: the history 1,000 + 300 a poll up to polls[TURN] (8,200), flat at 8,200 after it;
    purge and DML both at 50 rows a second throughout."""
    last = timezone.now().replace(microsecond=857_000) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(
        Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * min(i, TURN)})
        for i, t in enumerate(polls)
    )
    write_samples(
        Sample(server.pk, "innodb_metrics", t, 10.0, dict.fromkeys(PURGED, 250), frozenset(PURGED)) for t in polls[1:]
    )
    write_samples(
        Sample(
            server.pk,
            "global_status",
            t,
            10.0,
            {"Handler_update": 400, "Handler_delete": 100},
            frozenset({"Handler_update", "Handler_delete"}),
        )
        for t in polls[1:]
    )
    return polls


def held_to_the_turn(server, polls: list, thread: int, started) -> None:
    """root@localhost's transaction, open since `started`, seen 39 ms after polls[TURN], found gone after the next."""
    TrxHolder.objects.create(server=server, thread_id=thread, trx_key="k", user="root", host="localhost",
                             started_at=started, seen_at=polls[TURN] + timedelta(milliseconds=39),
                             ended_at=polls[TURN + 1] + timedelta(milliseconds=39))


def purge_verdict(client, server) -> str:
    body = client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=5000").content.decode()
    return body.split('id="purge-verdict"')[1].split("</section>")[0]


def hms(t) -> str:
    return f"{t.astimezone(UTC):%H:%M:%S}"


def test_a_flat_history_after_a_release_names_it(admin_client):
    server = make_server()
    polls = grown_then_flat(server)
    # Open since a minute before the first poll, seen by polls[TURN], found gone 39 ms after polls[TURN + 1].
    held_to_the_turn(server, polls, 40, started=polls[0] - timedelta(minutes=1))
    verdict = purge_verdict(admin_client, server)
    assert (
        f"<strong>Flat</strong> at 8,200, above the threshold (5,000) since thread 40 (root@localhost), open "
        f"since {hms(polls[0] - timedelta(minutes=1))} UTC, was found gone by the poll at "
        f"{hms(polls[TURN + 1])} UTC: purge removes what is added and no more, so the backlog its read view left "
        "stays"
    ) in verdict
    reading = purge_reading(server.pk, polls[-1], 5000)
    assert f"when thread 40 (root@localhost), open since {hms(polls[0] - timedelta(minutes=1))} UTC" in reading
    assert "so the backlog its read view left stays." in reading


def test_a_flat_history_with_no_holder_before_it_says_the_backlog_stays(admin_client):
    server = make_server()
    grown_then_flat(server)
    verdict = purge_verdict(admin_client, server)
    assert "purge removes what is added and no more, so the backlog stays" in verdict and "thread" not in verdict


def test_a_transaction_one_poll_caught_at_the_turn_is_no_release(admin_client):
    server = make_server()
    polls = grown_then_flat(server)
    # Begun a second before polls[TURN], found gone by the next: it did not grow the history.
    held_to_the_turn(server, polls, 41, started=polls[TURN] - timedelta(seconds=1))
    verdict = purge_verdict(admin_client, server)
    assert "so the backlog stays" in verdict and "thread 41" not in verdict
