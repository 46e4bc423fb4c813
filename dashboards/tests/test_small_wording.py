"""Words on the pages that used to mislead: twin run names, a dip threshold of 0 TPS, the flavor said twice."""

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from collectors.models import ServerHealth
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server, write_polls

pytestmark = pytest.mark.django_db


def figures(response) -> dict:
    found = re.search(r'<script id="figures" type="application/json">(.*?)</script>', response.content.decode(), re.S)
    assert found, "the page has no figures"
    return json.loads(found.group(1))


def test_two_runs_of_one_name_are_told_apart_by_their_start_in_the_compare_legend(admin_client):
    server = make_server("db1")
    first = write_polls(server, 120)
    a = Run.objects.create(name="rw x8", server=server, started_at=first, ended_at=first + timedelta(minutes=8))
    b = Run.objects.create(name="rw x8", server=server, started_at=first + timedelta(minutes=10))
    fig = figures(admin_client.get(f"/compare/?runs={a.pk},{b.pk}"))["compare-chart"]
    legend = {t["name"] for t in fig["data"] if t.get("showlegend")}
    starts = [r.started_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") for r in (a, b)]
    assert legend == {f"rw x8 (db1, {starts[0]} UTC)", f"rw x8 (db1, {starts[1]} UTC)"}


def test_a_median_of_zero_tps_is_said_to_be_no_tps_to_judge(admin_client):
    server = make_server("idle")
    end = datetime.now(UTC)
    write_samples([Sample(server.pk, "global_status", end - timedelta(seconds=10 * i), 10.0, {"tps": 0},
                          frozenset({"tps"})) for i in range(30)])
    ServerHealth.objects.create(server=server, last_poll_at=end, last_success_at=end, polls=30)  # up, not down
    body = admin_client.get(f"/servers/{server.pk}/stability/?range=15m").content.decode()
    assert "Dips: no TPS to judge (the median over this range is 0 TPS)" in body
    assert "No TPS to judge dips against" in body
    assert "under 0.0 TPS" not in body and "No dips" not in body


def test_the_version_names_the_flavor_once(admin_client):
    server = make_server("db1", flavor="mariadb", version="10.11.19-MariaDB-0+deb12u1")
    for url in ("/servers/", "/", f"/servers/{server.pk}/stability/"):
        body = admin_client.get(url).content.decode()
        assert "MariaDB 10.11.19</span>" in body, url
        assert "MariaDB 10.11.19-MariaDB" not in body, url


def test_the_run_report_names_the_dip_threshold_and_the_median_as_the_stability_page_does(admin_client):
    """the run report said "Dips below 50.0 % of the median TPS (189.0)", 189.0 being the threshold and
    the median 378.0. 3,780 transactions a 10 s poll (378 TPS), one poll at 100 TPS: by hand, median 378 TPS,
    dips under 189 TPS; the run report and the stability page of the run's range say it in the same words."""
    server = make_server("dips")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    write_samples([Sample(server.pk, "global_status", start + timedelta(seconds=10 * i), 10.0 if i else None,
                          {"tps": 1000 if i == 30 else 3780} if i else {"Threads_running": 4},
                          frozenset({"tps"}) if i else frozenset()) for i in range(51)])
    ServerHealth.objects.create(server=server, last_poll_at=start + timedelta(seconds=500),
                                last_success_at=start + timedelta(seconds=500), polls=51)
    run = Run.objects.create(name="dips", server=server, started_at=start, ended_at=start + timedelta(seconds=500))
    said = "Dips: TPS under 189.0 TPS, 50.0 % of the median (378.0 TPS), and stalls with no polls"
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    assert said in " ".join(report.split()) and "Dips below" not in report
    frm, to = (t.strftime("%Y-%m-%dT%H:%M:%S") for t in (start, start + timedelta(seconds=500)))
    stability = admin_client.get(f"/servers/{server.pk}/stability/?from={frm}&to={to}").content.decode()
    assert said in " ".join(stability.split())
