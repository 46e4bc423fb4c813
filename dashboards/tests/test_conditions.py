"""Condition waits (wait/synch/cond/*) are left out of the rankings by default, with a toggle kept in the URL."""

import csv
import io

import pytest

from dashboards.analysis.topwaits import WaitRow, without_conditions
from dashboards.reads import top_wait_of
from testing.dashboards import LOG_SYS_LOCK, TRX_SYS, figures, make_server, write_polls

COND = "wait/synch/cond/mysys/COND_timer"


def test_the_fleet_top_wait_leaves_condition_waits_out_unless_asked():
    latest = {(1, "wait.time_ps:" + COND): (None, 9e12), (1, "wait.time_ps:a"): (None, 3e12),
              (1, "wait.time_ps:b"): (None, 1e12)}
    top = top_wait_of(latest, 1)
    assert (top.event, top.share) == ("a", 0.75)  # a share of the waits ranked
    assert top_wait_of(latest, 1, conditions=True).event == COND
    assert top_wait_of({(1, "wait.time_ps:" + COND): (None, 9e12)}, 1) is None


def test_hiding_condition_waits_says_what_and_shares_the_rest():
    rows = [WaitRow(COND, 10, 900, 0.9), WaitRow("a", 5, 75, 0.075), WaitRow("b", 5, 25, 0.025)]
    kept, hidden = without_conditions(rows)
    assert [(r.event, r.share) for r in kept] == [("a", 0.75), ("b", 0.25)]
    assert (hidden.events, hidden.time_ps) == (1, 900)


@pytest.fixture
def lab(client, admin_user, db):
    client.force_login(admin_user)
    server = make_server()
    write_polls(server, 60, events=(COND, TRX_SYS, LOG_SYS_LOCK))  # the condition wait is the biggest
    return server


def chart_waits(response) -> list[str]:
    fig = figures(response)["stability-chart"]
    return [t["name"] for t in fig["data"] if t["yaxis"] == "y2"]


def test_the_stability_chart_ranks_waits_without_condition_waits_by_default(client, lab):
    response = client.get(f"/servers/{lab.pk}/stability/?range=1h")
    body = response.content.decode()
    assert chart_waits(response) == [TRX_SYS, LOG_SYS_LOCK]
    assert "1 event with time in this range hidden" in body and "include condition waits" in body
    shown = client.get(f"/servers/{lab.pk}/stability/?range=1h&cond=1")
    assert chart_waits(shown) == [COND, TRX_SYS, LOG_SYS_LOCK]
    html = shown.content.decode()
    assert 'name="cond" value="1" checked' in html and "are not ranked" not in html
    assert "range=6h&amp;cond=1" in html  # the presets keep the toggle


def test_the_top_waits_table_hides_condition_waits_by_default_and_its_csv_too(client, lab):
    body = client.get(f"/servers/{lab.pk}/waits/?range=1h").content.decode()
    assert "COND_timer" not in body.split("<table")[1] and "are hidden: 1 event" in body
    link = next(part.split('"')[0] for part in body.split('href="')[1:] if part.startswith("/export/topwaits"))
    assert "cond=0" in link
    response = client.get(link.replace("&amp;", "&"))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    assert [r[1] for r in rows[1:]] == [TRX_SYS, LOG_SYS_LOCK]
    everything = client.get(f"/servers/{lab.pk}/waits/?range=1h&cond=1").content.decode()
    assert "COND_timer" in everything.split("<table")[1] and "cond=0" not in everything


@pytest.mark.parametrize("page", ["stability", "waits"])
def test_a_cond_value_that_is_neither_1_nor_0_is_said_and_ranks_as_off(client, lab, page):
    # cond=7 was read as "off" without a word; the page now says so (the top-waits CSV refuses it).
    body = client.get(f"/servers/{lab.pk}/{page}/?range=1h&cond=7").content.decode()
    assert "cond=&#x27;7&#x27; must be 1 (rank condition waits with the others) or 0 (leave them out)" in body
    assert 'name="cond" value="1" checked' not in body  # ranked as the default: condition waits left out


def test_the_fleet_top_wait_now_follows_the_toggle(client, lab):
    body = client.get("/").content.decode()
    top = body.split('<td class="event">')[1]
    assert "trx_sys_mutex" in top.split("</td>")[0] and "leaves out condition waits" in body
    top = client.get("/?cond=1").content.decode().split('<td class="event">')[1]
    assert "COND_timer" in top.split("</td>")[0] and "cond=1" in top


def test_the_run_report_ranks_waits_as_the_stability_page_does(lab):
    from datetime import UTC, datetime, timedelta

    from dashboards.reports.charts import stability_chart
    from dashboards.reports.summary import summarize_run
    from servers.models import Run

    now = datetime.now(UTC)
    run = Run.objects.create(name="r", server=lab, started_at=now - timedelta(minutes=9), ended_at=now)
    fig, _dips, _verdict = stability_chart(summarize_run(run))
    assert [t["name"] for t in fig["data"] if t["yaxis"] == "y2"] == [TRX_SYS, LOG_SYS_LOCK]


def test_the_compare_page_and_run_report_tables_hide_condition_waits_with_the_toggle(client, lab):
    from datetime import UTC, datetime, timedelta

    from servers.models import Run

    now = datetime.now(UTC)
    run = Run.objects.create(name="r", server=lab, started_at=now - timedelta(minutes=9), ended_at=now)
    compare = client.get(f"/compare/?runs={run.pk}").content.decode()
    assert "COND_timer" not in compare.split('class="compare-summary"')[1] and "include condition waits" in compare
    assert "COND_timer" in client.get(f"/compare/?runs={run.pk}&cond=1").content.decode().split(
        'class="compare-summary"')[1]
    report = client.get(f"/runs/{run.pk}/report/").content.decode()
    waits = report.split('id="top-waits"')[1]
    assert "COND_timer" not in waits.split("</table>")[0] and "1 condition wait left out" in waits
    link = next(p.split('"')[0] for p in report.split('href="')[1:] if p.startswith("/export/topwaits"))
    rows = list(csv.reader(io.StringIO(b"".join(client.get(link.replace("&amp;", "&")).streaming_content).decode())))
    assert [r[1] for r in rows[1:]] == [TRX_SYS, LOG_SYS_LOCK]
    assert "COND_timer" in client.get(f"/runs/{run.pk}/report/?cond=1").content.decode().split('id="top-waits"')[1]


def test_the_fleet_page_and_run_report_say_a_cond_value_they_cannot_read_and_the_fleet_csv_refuses_it(client, lab):
    from datetime import UTC, datetime, timedelta

    from servers.models import Run

    said = "cond=&#x27;7&#x27; must be 1 (rank condition waits with the others) or 0 (leave them out)"
    fleet = client.get("/?cond=7").content.decode()
    assert said in fleet and "trx_sys_mutex" in fleet.split('<td class="event">')[1].split("</td>")[0]
    now = datetime.now(UTC)
    run = Run.objects.create(name="r", server=lab, started_at=now - timedelta(minutes=9), ended_at=now)
    report = client.get(f"/runs/{run.pk}/report/?cond=7").content.decode()
    assert said in report and "COND_timer" not in report.split('id="top-waits"')[1].split("</table>")[0]
    refused = client.get("/export/fleet.csv?cond=7")
    assert refused.status_code == 400 and b"cond='7': use cond=1" in refused.content
    assert client.get("/export/fleet.csv?cond=0").status_code == 200
