"""A statement's page lists the runs it appeared in from the digest reads that ended inside each run: a read
counts the statements of the interval before it, so one that began before the run may hold statements run before
it. Seen in the audit: 25 SELECT SLEEP(0.2) run at 19:37:18-19:37:30 were listed under a sysbench step that began
at 19:38:01, in whose first 25 s the read 19:37:25-19:38:26 ended."""

import re
from datetime import timedelta

import pytest

from servers.models import Run
from store.statement_reads import totals
from testing.dashboards import RECENT_T0, make_server
from testing.statements import SLEEPY, write_reads

pytestmark = pytest.mark.django_db


def runs_card(body: str) -> str:
    return body[body.index("Runs it appeared in"):]


def test_a_run_seen_only_in_a_read_that_began_before_it_says_so(admin_client):
    server = make_server("db1")
    write_reads(server.pk, RECENT_T0, 4, shapes=(SLEEPY,))  # reads end at 60, 120, 180, 240 s
    # the read 60-120 s ends 25 s into "late" (95-136 s); "whole" (170-250 s) holds the read 180-240 s entirely
    Run.objects.create(server=server, name="late", started_at=RECENT_T0 + timedelta(seconds=95),
                       ended_at=RECENT_T0 + timedelta(seconds=136))
    Run.objects.create(server=server, name="whole", started_at=RECENT_T0 + timedelta(seconds=170),
                       ended_at=RECENT_T0 + timedelta(seconds=250))
    digest_id = next(r.digest_id for r in totals(server.pk, RECENT_T0, RECENT_T0 + timedelta(seconds=240))
                     if r.digest == SLEEPY.digest)
    body = admin_client.get(f"/servers/{server.pk}/statements/{digest_id}/").content.decode()
    card = " ".join(re.sub(r"<[^>]+>", " ", runs_card(body)).split())
    assert "late" in card and "whole" in card
    assert card.count("only in a digest read that began before the run") == 1
    assert re.search(r"late \S+ \S+ only in a digest read that began before the run \(35 s before\)", card)


def test_lock_time_says_row_lock_waits_are_in_the_statements_time(admin_client):
    """Seen in the audit on MariaDB 10.11: 6 UPDATEs of one row, 3 of them waiting about 1.7 s each for the other
    session's row lock (5.19 s in all), had a lock time of 1.10 ms: SUM_LOCK_TIME is the table locks' time."""
    server = make_server("db1")
    write_reads(server.pk, RECENT_T0, 2, shapes=(SLEEPY,))
    digest_id = next(r.digest_id for r in totals(server.pk, RECENT_T0, RECENT_T0 + timedelta(seconds=120))
                     if r.digest == SLEEPY.digest)
    body = admin_client.get(f"/servers/{server.pk}/statements/{digest_id}/", {
        "from": f"{RECENT_T0:%Y-%m-%dT%H:%M:%S}", "to": f"{RECENT_T0 + timedelta(seconds=120):%Y-%m-%dT%H:%M:%S}"})
    words = " ".join(re.sub(r"<[^>]+>", " ", body.content.decode()).split())
    assert "lock time (table locks: a wait for an InnoDB row lock counts in the total time)" in words
