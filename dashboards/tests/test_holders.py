"""The purge page's holders block: oldest-transaction age beside history length, the holders table and CSV."""

import csv
import io
from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.template import Context, Template

from collectors.models import TrxHolder
from dashboards.figures.holders import HolderSpan, oldest_trx_figure
from dashboards.templatetags.dash_fmt import utc_second
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import EVIL, figures, make_server

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def holder(server, thread: int, start: datetime, end: datetime | None, statement: str, user: str = "report"):
    return TrxHolder.objects.create(server=server, thread_id=thread, trx_key=f"{thread}/{start}", user=user,
                                    host="10.0.0.7:5123", state="RUNNING, Sleep", isolation="REPEATABLE READ",
                                    statement=statement, idle=True, started_at=start,
                                    seen_at=end or start + timedelta(seconds=50), ended_at=end)


def ages(server, n: int = 30) -> None:
    """A transaction open from T0: its age grows 10 s a poll, history with it."""
    write_samples([Sample(server.pk, "oldest_trx", T0 + timedelta(seconds=10 * i), 10.0,
                          {"trx_oldest_age_s": 10 * i, "trx_older_60s": int(10 * i > 60),
                           "trx_read_view_age_s": 10 * i})
                   for i in range(n)]
                  + [Sample(server.pk, "history_length", T0 + timedelta(seconds=10 * i), 10.0,
                            {"history_list_length": 1000 + 50 * i}) for i in range(n)])


def test_it_draws_the_age_on_its_own_axis_and_shades_each_holder():
    history = type("P", (), {"ts": [T0], "values": [5]})()
    oldest = type("P", (), {"ts": [T0], "values": [7]})()
    fig = oldest_trx_figure(history, oldest, None, [HolderSpan(T0, T0 + timedelta(minutes=2), EVIL)])
    assert [t["yaxis"] for t in fig["data"]] == ["y", "y2"]
    assert fig["layout"]["yaxis2"]["overlaying"] == "y"
    assert fig["layout"]["shapes"][0]["x0"] == "2026-03-02T09:00:00"
    assert "<script>" not in fig["layout"]["annotations"][0]["text"]


def test_a_holders_time_is_written_in_utc_to_the_second_as_the_date_filter_wrote_it():
    at_two = datetime(2026, 3, 2, 11, 4, 50, 999_999, tzinfo=timezone(timedelta(hours=2)))
    assert utc_second(at_two) == "2026-03-02 09:04:50"  # 11:04:50 at +02:00, the fraction cut
    assert utc_second(T0) == "2026-03-02 09:00:00"
    assert utc_second(None) == utc_second("") == ""
    django_chain = Template('{% load tz %}{{ t|utc|date:"Y-m-d H:i:s" }}')
    for t in (at_two, T0, datetime(1970, 1, 1, tzinfo=UTC), datetime(2100, 12, 31, 23, 59, 59), None, ""):
        assert utc_second(t) == django_chain.render(Context({"t": t}))


def test_the_purge_page_lists_the_holders_of_the_range(admin_client):
    server = make_server()
    ages(server)
    holder(server, 4711, T0, T0 + timedelta(seconds=290), "SELECT * FROM sales")
    holder(server, 99, T0 - timedelta(hours=3), T0 - timedelta(hours=2), "SELECT 'before the range'")
    holder(server, 12, T0 + timedelta(seconds=295), None, EVIL, user="etl")
    url = f"/servers/{server.pk}/purge/?from=2026-03-02T09:00:00Z&to=2026-03-02T09:10:00Z"
    response = admin_client.get(url)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<td>4711</td><td>report@10.0.0.7:5123</td>" in body and "SELECT * FROM sales" in body
    assert "<td>2026-03-02 09:04:50</td>" in body  # its end
    assert "<td>12</td><td>etl@10.0.0.7:5123</td>" in body and "still open" in body
    assert "before the range" not in body and EVIL not in body
    fig = figures(response)["oldest-trx-chart"]
    age = next(t for t in fig["data"] if t["name"] == "oldest transaction age (s)")
    assert age["y"] == [10 * i for i in range(30)]  # every poll in the range, as written


def test_the_holders_csv_is_the_table_with_the_held_time(admin_client):
    server = make_server()
    holder(server, 4711, T0, T0 + timedelta(seconds=290), "=HYPERLINK(\"http://x\")")
    response = admin_client.get("/export/holders.csv", {"server": server.pk, "from": "2026-03-02T08:00:00Z",
                                                   "to": "2026-03-02T10:00:00Z"})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    assert rows[0][:3] == ["thread", "user", "host"]
    assert rows[1][0] == "4711" and float(rows[1][6]) == 290.0
    assert not rows[1][9].startswith("=")  # a statement cannot become a spreadsheet formula


def test_the_holders_csv_wants_a_server(admin_client):
    response = admin_client.get("/export/holders.csv")
    assert response.status_code == 400 and b"server is missing" in response.content
