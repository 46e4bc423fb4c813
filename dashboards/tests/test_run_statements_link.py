"""The Runs list's statements link covers the whole run: the digest reads end every 60 s, and the tab sums those
that end in its range, so a link over the run's exact span left its last seconds (in the read ending after it) out.

Live: a run of 01:25:49-01:30:49 listed 157,611 FOR UPDATE executions against the driver's 175,699, its last 23 s
falling in a read that ended after the run.
"""

import html
import re
from datetime import timedelta

import pytest

from servers.models import Run
from testing.dashboards import RECENT_T0, make_server
from testing.statements import UPDATE, Shape, write_reads

pytestmark = pytest.mark.django_db

RATE = 5  # UPDATE executions a second while the run goes on, none outside it
RUN_START, RUN_END = 49, 349  # s from RECENT_T0: a 300 s run
# Reads every 60 s ending at 60, 120, ..., 420 (each covers the 60 s before it), executions by hand:
# (0, 60]: 11 s of the run; (60, 120] to (240, 300]: 60 s each; (300, 360]: 49 s; (360, 420]: none of the run,
# another client's 999.
EXECS = {60: 11 * RATE, 120: 300, 180: 300, 240: 300, 300: 300, 360: 49 * RATE, 420: 999}
RUN_EXECS = RATE * (RUN_END - RUN_START)  # 1,500: what the driver counted


def write_run(name: str) -> Run:
    server = make_server(name, poll_interval=10)
    for end, execs in EXECS.items():
        write_reads(server.pk, RECENT_T0 + timedelta(seconds=end - 60), 1, shapes=(Shape(
            UPDATE.digest, UPDATE.text, execs, UPDATE.latency_ps),))
    return Run.objects.create(name=name, server=server, started_at=RECENT_T0 + timedelta(seconds=RUN_START),
                              ended_at=RECENT_T0 + timedelta(seconds=RUN_END))


def statements_link(admin_client, run: Run) -> str:
    body = admin_client.get("/runs/").content.decode()
    row = body.split(f'aria-label="compare {run.name}"')[1].split("</tr>")[0]
    return html.unescape(row.split('href="')[-2].split('"')[0])  # stability · statements · report


def said(response) -> str:
    """The page's words, tags left out."""
    return " ".join(re.sub(r"<[^>]+>", "", response.content.decode()).split())


def update_execs(response) -> int:
    return next(r.sums["execs"] for r in response.context["found"].rows if r.digest == UPDATE.digest)


def test_the_runs_statements_link_counts_every_execution_of_the_run(admin_client):
    run = write_run("whole-run")
    link = statements_link(admin_client, run)
    # to the end of the read that holds the run's end (349 in (300, 360]), not to the next one (420)
    assert link == (f"/servers/{run.server_id}/statements/?from={run.started_at:%Y-%m-%dT%H%%3A%M%%3A%S.%f}"
                    f"&to={RECENT_T0 + timedelta(seconds=360):%Y-%m-%dT%H%%3A%M%%3A%S.%f}")
    response = admin_client.get(link)
    assert update_execs(response) == RUN_EXECS == 1500  # before: 1,255 (the reads ending 60 to 300)
    text = said(response)
    at = RECENT_T0.strftime("%Y-%m-%d %H:%M:%S")
    assert (f"6 reads covering 360 s, from {at} to {RECENT_T0 + timedelta(seconds=360):%H:%M:%S} UTC: "
            "the first began before the range)") in text


def test_the_tab_says_when_its_last_read_ended_before_the_range(admin_client):
    run = write_run("exact-span")
    span = {"from": run.started_at.isoformat(), "to": run.ended_at.isoformat()}
    response = admin_client.get(f"/servers/{run.server_id}/statements/", span)
    assert update_execs(response) == 11 * RATE + 4 * 300 == 1255  # the reads ending in (49, 349]
    text = said(response)
    assert (f"to {RECENT_T0 + timedelta(seconds=300):%H:%M:%S} UTC: the first began before the range, the last "
            "ended 49 s before the range's end, and what ran after it is in the next read, which ends after the "
            "range)") in text


def test_a_run_with_no_read_after_it_links_to_its_own_end(admin_client):
    # The reads stop at 300 (the source off): nothing holds the run's end, so the link ends where the run did.
    server = make_server("no-read-after", poll_interval=10)
    write_reads(server.pk, RECENT_T0, 5, shapes=(UPDATE,))
    run = Run.objects.create(name="no-read-after", server=server, started_at=RECENT_T0 + timedelta(seconds=RUN_START),
                             ended_at=RECENT_T0 + timedelta(seconds=RUN_END))
    assert statements_link(admin_client, run).endswith(f"&to={run.ended_at:%Y-%m-%dT%H%%3A%M%%3A%S.%f}")

