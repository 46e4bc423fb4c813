"""The waits page's two intervals side by side: each wait compared links the statements behind it over A and over B,
ranked by the digest column the wait accumulates in (dashboards.analysis.wait_statements), as the table of A does."""

import html
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

pytestmark = pytest.mark.django_db
STEP = 10  # seconds between polls
# Each event, with the Statements tab's ranking that names its statements and that ranking's name, by the rule
# the waits page states under its table: row locks by total time, table locks by lock time, data file reads by
# rows examined.
EVENTS = {"wait/io/table/sql/handler": ("time", "total time"),
          "wait/lock/table/sql/handler": ("lock", "lock time"),
          "wait/io/file/innodb/innodb_data_file": ("rows_examined", "rows examined")}
ROW = re.compile(r'<tr><td class="event">(.*?)</td>.*?<td class="wait-statements">by (.*?): '
                 r'<a class="in-a" href="(.*?)">in A</a>, <a class="in-b" href="(.*?)">in B</a></td></tr>', re.S)


def poll(server_id: int, ts: datetime, waited_s: int) -> list[Sample]:
    waits = {f"wait.{what}:{event}": n for event in EVENTS for what, n in (("time_ps", waited_s * 10**12),
                                                                          ("count", 10))}
    return [Sample(server_id, "global_status", ts, float(STEP), {"tps": 100}, frozenset({"tps"})),
            Sample(server_id, "pfs_waits", ts, float(STEP), waits, frozenset(waits))]


def utc(text: str) -> datetime:
    """A time of a link: the pages write UTC without an offset."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_each_compared_wait_links_its_statements_in_both_intervals(admin_client):
    server = make_server()
    t = timezone.now().replace(microsecond=0) - timedelta(minutes=30)
    write_samples([s for k in range(1, 121) for s in poll(server.pk, t + timedelta(seconds=STEP * k), 1 + k // 60)])
    a, b = (t, t + timedelta(minutes=10)), (t + timedelta(minutes=10), t + timedelta(minutes=20))
    response = admin_client.get(f"/servers/{server.pk}/waits/", {"from": a[0].isoformat(), "to": a[1].isoformat(),
                                                                  "from2": b[0].isoformat(), "to2": b[1].isoformat()})
    table = response.content.decode().split('<table class="waits-diff">')[1].split("</table>")[0]
    rows = ROW.findall(table)
    assert sorted(re.sub(r"<[^>]+>", "", event) for event, *_ in rows) == sorted(EVENTS)
    for event, label, href_a, href_b in rows:
        event = re.sub(r"<[^>]+>", "", event)
        order, name = EVENTS[event]
        assert html.unescape(label) == name
        for href, (start, end) in ((href_a, a), (href_b, b)):
            url = urlsplit(html.unescape(href))
            query = parse_qs(url.query)
            assert url.path == f"/servers/{server.pk}/statements/"
            assert (query["order"], query["wait"]) == ([order], [event])
            assert [utc(query["from"][0]), utc(query["to"][0])] == [start, end]
