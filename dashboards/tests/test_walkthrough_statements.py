"""docs/walkthrough-find-what-limits-tps.md, step 4b "Which statements", followed link by link as a reader would."""

import html
import re
from datetime import UTC, datetime, timedelta

import pytest

from servers.models import Run
from testing.dashboards import TEN_MINUTES, ten_minutes
from testing.statements import SLEEPY, write_reads

pytestmark = pytest.mark.django_db
START, END = TEN_MINUTES
WINDOW = {"from": START.strftime("%Y-%m-%dT%H:%M:%S"), "to": END.strftime("%Y-%m-%dT%H:%M:%S")}


def link(body: str, text: str) -> str:
    """The href of the first link whose text is text."""
    found = re.search(r'<a [^>]*href="([^"]+)"[^>]*>' + re.escape(text) + "</a>", body)
    assert found, f"no link {text!r}"
    return html.unescape(found.group(1))


def test_the_stability_page_leads_to_the_statements_and_each_statements_page(admin_client):
    server = ten_minutes("walk-db")
    write_reads(server.pk, START, 10)  # a read a minute: SLEEPY has the most time, then UPDATE, then POINT
    run = Run.objects.create(server=server, name="rw x8", started_at=START, ended_at=END)
    stability = admin_client.get(f"/servers/{server.pk}/stability/", WINDOW).content.decode()

    # "Statements in this range" opens the Statements tab for the page's times, ranked by total time.
    tab = admin_client.get(link(stability, "Statements in this range"))
    assert tab.status_code == 200
    body = tab.content.decode()
    table = body.split('<table class="statements">')[1].split("</table>")[0]
    assert table.index("SLEEP") < table.index("UPDATE") < table.index("SELECT `v`")
    # The shares of the digests and of "all other statements" add up to every statement's time.
    shares = [float(s) for s in re.findall(r"([\d.]+)\s*%</td>", table)]
    assert "all other statements" in table and sum(shares) == pytest.approx(100, abs=0.5)
    for column in ("avg latency", "rows examined / sent", "full scans", "errors", "time per transaction"):
        assert column in body

    # A dip's "statements" link opens the tab for the dip's times and one statements interval after them: this
    # dip is one 10 s poll, shorter than the minute between two digest reads, and the read after it covers it.
    dip_poll = START + timedelta(seconds=300)  # testing.dashboards.tps_delta's dip: poll 30, its 10 s before it
    dip = admin_client.get(link(stability, "statements")).content.decode()
    shown = re.search(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) → (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", dip)
    since, until = (datetime.strptime(t, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC) for t in shown.groups())
    assert since <= dip_poll - timedelta(seconds=10) and until >= dip_poll + timedelta(seconds=60)
    assert "SLEEP" in dip and "No statement digests recorded" not in dip
    # 10 s chosen by hand between two reads (one a minute from START) hold none: the tab says why.
    bare = admin_client.get(f"/servers/{server.pk}/statements/", {
        "from": f"{dip_poll + timedelta(seconds=20):%Y-%m-%dT%H:%M:%S}",
        "to": f"{dip_poll + timedelta(seconds=30):%Y-%m-%dT%H:%M:%S}"})
    assert "No statement digests recorded" in bare.content.decode() and "reads every 60 s" in bare.content.decode()

    # A statement's link opens its page: the text, its line, the runs it ran in.
    digest_link = re.search(rf'href="(/servers/{server.pk}/statements/\d+/[^"]*)"', table).group(1)
    page = admin_client.get(html.unescape(digest_link)).content.decode()
    assert SLEEPY.text in html.unescape(page)  # the first row's: the most time
    assert "Executions per second and average latency" in page
    assert "Runs it appeared in" in page and run.name in page
