"""The stability page over a run's range (the Runs list's and the report's link) shows the run's figures.

5 s polls, the run started 41 ms before one (at .293, the poll at .334, as the audit found it): that poll's delta
covers the 5 s before the run, so the run report leaves it out (its interval is not inside the run), while the
range's (start, end] took it in: 49 points, a mean under the run's.
"""

from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db

FIRST = RECENT_T0 + timedelta(seconds=0.334)  # the poll read 41 ms after the run started
START = RECENT_T0 + timedelta(seconds=0.293)


def polls(server_id: int) -> list[Sample]:
    """A baseline 5 s before FIRST, then FIRST at 100 TPS (500 in 5 s, before the run), then 48 polls at 176 TPS."""
    out = [Sample(server_id, "global_status", FIRST - timedelta(seconds=5), None, {"Threads_running": 4})]
    for k in range(49):
        done = 500 if k == 0 else 880
        out.append(Sample(server_id, "global_status", FIRST + timedelta(seconds=5 * k), 5.0,
                          {"tps": done, "Threads_running": 4}, frozenset({"tps"})))
    return out


def test_it_shows_the_runs_own_figures_over_the_runs_range(admin_client):
    server = make_server("run-range")
    write_samples(polls(server.pk))
    run = Run.objects.create(name="r", server=server, started_at=START, ended_at=FIRST + timedelta(seconds=240.05),
                             warmup_seconds=0)
    report = admin_client.get(f"/runs/{run.pk}/report/").context
    answer = admin_client.get(f"/servers/{server.pk}/stability/", report["range_params"])  # the report's link
    summary = answer.context["summary"]
    # By hand: the polls inside the run are the 48 after FIRST, 48 * 880 transactions over 240 s = 176.0 TPS.
    # Before: the 49 polls in (start, end], (500 + 48 * 880) / 245 s = 174.4 TPS.
    assert (summary.points, round(summary.mean, 3)) == (48, 176.0)
    assert (report["summary"].tps.points, round(report["summary"].tps.mean, 3)) == (48, 176.0)
    assert answer.context["verdict"].points == 48


def test_the_verdict_leaves_out_a_poll_read_after_the_runs_end(admin_client):
    """Seen live: a run ended at 10:55:01.161 and the poll at 10:55:01.666 (its delta reaching past the end) lay
    inside the link's range, which ends at the second after the run's end: the summary said 47 points, the
    verdict beside it 48 (the report's 47)."""
    server = make_server("run-range-end")
    write_samples(polls(server.pk))
    run = Run.objects.create(name="r", server=server, started_at=START, ended_at=FIRST + timedelta(seconds=239.9),
                             warmup_seconds=0)
    report = admin_client.get(f"/runs/{run.pk}/report/").context
    answer = admin_client.get(f"/servers/{server.pk}/stability/", report["range_params"])
    # By hand: the polls inside the run are FIRST + 5 s .. FIRST + 235 s, 47 of them; the one at FIRST + 240 s
    # measured up to 0.1 s after the run's end, and the link's range (to the second after the end) holds it.
    assert report["summary"].tps.points == 47 and answer.context["summary"].points == 47
    assert answer.context["verdict"].points == 47
