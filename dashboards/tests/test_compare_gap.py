"""A run whose server was down for part of it: its average is of the seconds its polls cover, and the compare
page and report say how few those were, as the run report does ("transactions in the 70 s of polls inside")."""

from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.ab import write_runs
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db
POLL = 10


def gap_run(server, start):
    """120 s at 200 TPS, the server down from 30 s to 80 s: its restart reset the counters, so the poll at 90 s
    is the first delta after it. Polls at 10, 20, 30, 90, 100, 110, 120 s cover 70 of the 120 s."""
    run = Run.objects.create(name="gap", server=server, started_at=start, ended_at=start + timedelta(seconds=120))
    samples = [Sample(server.pk, "global_status", start + timedelta(seconds=s), float(POLL), {"tps": 200.0 * POLL},
                      frozenset({"tps"})) for s in (10, 20, 30, 90, 100, 110, 120)]
    write_samples(samples)
    return run


@pytest.fixture
def runs():
    server = make_server("gap", poll_interval=POLL)
    whole = write_runs(server, "whole", RECENT_T0, [100.0])[0]  # 6 polls of 10 s: 60 of its 60 s
    return whole, gap_run(server, RECENT_T0 + timedelta(minutes=10))


def test_the_compare_page_says_a_run_measured_only_part_of_its_length(admin_client, runs):
    whole, gap = runs
    html = admin_client.get("/compare/", {"runs": f"{whole.pk},{gap.pk}"}).content.decode()
    assert "200.0" in html and "100.0" in html  # each run's average over its polls' seconds
    assert html.count("polls cover ") == 1
    assert "polls cover 70 s of 120 s" in html


def test_the_compare_report_says_it_too(admin_client, runs):
    whole, gap = runs
    html = admin_client.get("/reports/compare/", {"runs": f"{whole.pk},{gap.pk}"}).content.decode()
    assert html.count("polls cover ") == 1
    assert "polls cover 70 s of 120 s" in html
