"""The Statements tab, a statement's page and their CSVs over known digest rows (figures computed here by hand)."""

import html
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs

import pytest
from django.test import Client

from collectors.models import ServerHealth
from dashboards.models import ApiToken
from dashboards.server_form import ServerForm
from servers.models import Run
from store.statement_reads import totals
from testing.dashboards import TEN_MINUTES, figures, get_csv, make_server, tps_delta, write_polls, write_run_data
from testing.statements import MS, POINT, REST_EXECS, SHAPES, SLEEPY, UPDATE, Shape, write_reads

pytestmark = pytest.mark.django_db
START, END = TEN_MINUTES  # polls every 10 s; ten statement reads every 60 s, the first ending at START + 60 s
RANGE = {"from": START.isoformat(), "to": END.isoformat()}
TRANSACTIONS = sum(tps_delta(i) for i in range(1, 61))  # the TPS polls in (START, END]


def ten_reads(name="db1", shapes=SHAPES):
    server = make_server(name, poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10, shapes=shapes)
    return server


def digest_id(server, shape) -> int:
    return next(r.digest_id for r in totals(server.pk, START, END) if r.digest == shape.digest)


def test_it_says_the_first_read_began_before_the_range_only_when_it_did(admin_client):
    server = ten_reads()  # reads end at START + 60 s, + 120 s, ...: the first covers START to START + 60 s
    inside = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    assert "10 reads covering 600 s" in inside and "began before the range" not in inside
    later = {"from": (START + timedelta(seconds=30)).isoformat(), "to": END.isoformat()}
    body = admin_client.get(f"/servers/{server.pk}/statements/", later).content.decode()
    # the read ending at START + 60 s is in (START + 30 s, END] and began at START, 30 s before the range
    assert "10 reads covering 600 s" in body and "the first began before the range" in body


def test_the_reads_span_said_in_utc_is_utc_whatever_time_zone_is_set(admin_client, settings):
    settings.TIME_ZONE = "Asia/Kolkata"  # UTC+05:30: a time written in it reads half past where UTC reads on the hour
    server = ten_reads()
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    # the ten reads cover START (on the hour, UTC) to START + 600 s
    assert f"10 reads covering 600 s, from {START:%Y-%m-%d %H}:00:00 to {START:%H}:10:00 UTC" in body


def test_the_statements_tab_ranks_by_time_with_hand_computed_figures(admin_client):
    server = ten_reads()
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    order = [body.index(f"· {shape.digest}") for shape in (SLEEPY, UPDATE, POINT)]
    assert order == sorted(order)  # 5 s, 3 s, 1 s
    assert "10 reads covering 600 s" in body and "<polyline" in body


def test_each_row_links_its_statement_page_over_the_same_range(admin_client):
    server = ten_reads()
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    query = f"from={START:%Y-%m-%dT%H:%M:%S}&amp;to={END:%Y-%m-%dT%H:%M:%S}".replace(":", "%3A")
    for shape in (SLEEPY, UPDATE, POINT):
        assert f'href="/servers/{server.pk}/statements/{digest_id(server, shape)}/?{query}"' in body


def test_it_ranks_by_executions_and_full_scans(admin_client):
    server = ten_reads()
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, order="execs", **RANGE)
    assert [r[2] for r in rows[1:4]] == [POINT.digest, UPDATE.digest, SLEEPY.digest]
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, order="scans", **RANGE)
    assert rows[1][2] == UPDATE.digest


def test_the_statements_csv_has_the_sums_an_engineer_adds_up(admin_client):
    server = ten_reads()
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, **RANGE)
    head = rows[0]
    sleepy = dict(zip(head, rows[1], strict=True))
    assert sleepy["digest"] == SLEEPY.digest and sleepy["executions"] == "100"
    assert float(sleepy["total time (s)"]) == 5.0 and float(sleepy["avg latency (ms)"]) == 50.0
    total_ps = 10 * (0.5 + 0.1 + 0.3) * 10**12 + 10 * REST_EXECS * MS
    assert float(sleepy["share of time (%)"]) == pytest.approx(100 * 5e12 / total_ps)
    assert float(sleepy["time per transaction (ms)"]) == pytest.approx(5e12 / TRANSACTIONS / 1e9)
    update = dict(zip(head, rows[2], strict=True))
    assert update["errors"] == "10" and float(update["rows examined per row sent"] or 0) == 0
    assert update["rows examined per row sent"] == ""  # no row sent: no ratio
    rest = dict(zip(head, rows[-1], strict=True))
    assert rest["rank"] == "" and rest["executions"] == str(10 * REST_EXECS)


def test_a_statements_page_draws_its_lines_and_lists_its_runs(admin_client):
    server = ten_reads()
    run = Run.objects.create(name="r1", server=server, started_at=START, ended_at=END)
    Run.objects.create(name="before", server=server, started_at=START - timedelta(days=1),
                       ended_at=START - timedelta(hours=23))
    did = digest_id(server, SLEEPY)
    response = admin_client.get(f"/servers/{server.pk}/statements/{did}/", {**RANGE, "w": 80})
    assert response.status_code == 200
    fig = figures(response)["statement-chart"]
    execs = [v for v in fig["data"][0]["y"] if v is not None]
    latency = [v for v in fig["data"][1]["y"] if v is not None]
    assert execs and all(v == pytest.approx(10 / 60) for v in execs)  # 10 executions a 60 s read
    assert latency and all(v == pytest.approx(50.0) for v in latency)
    body = response.content.decode()
    assert f"/runs/{run.pk}/report/" in body and ">before<" not in body
    rows = get_csv(admin_client, "/export/statement.csv", server=server.pk, digest=did, **RANGE)
    assert len(rows) == 11 and rows[1][2] == "10" and float(rows[1][5]) == 50.0


def test_the_table_full_row_is_shown_not_hidden(admin_client):
    server = ten_reads(shapes=SHAPES + (Shape("", "", 40, MS, schema=""),))  # the NULL-digest row
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    assert "The digest table was full in this range: 400 executions" in body


def test_bad_parameters_are_said_not_failed(admin_client):
    server = ten_reads()
    body = admin_client.get(f"/servers/{server.pk}/statements/", {**RANGE, "order": "bogus"}).content.decode()
    assert "order=&#x27;bogus&#x27; is not one of" in body
    response = admin_client.get("/export/statements.csv", {"server": server.pk, "order": "bogus", **RANGE})
    assert response.status_code == 400 and b"order=" in response.content
    response = admin_client.get("/export/statement.csv", {"server": server.pk, "digest": "x", **RANGE})
    assert response.status_code == 400 and b"digest=" in response.content
    assert admin_client.get(f"/servers/{server.pk}/statements/999999/").status_code == 404


def test_statement_pages_need_a_login():
    for url in ("/servers/1/statements/", "/servers/1/statements/1/"):
        assert Client().get(url).status_code == 302, url


def test_the_stability_page_links_each_dip_and_the_range_to_its_statements(admin_client):
    server = make_server("dippy")
    start = write_polls(server, 90)  # one dip: polls 30..35 (start + 300 s .. 350 s) count 6 TPS, the rest ~530
    body = admin_client.get(f"/servers/{server.pk}/stability/?range=1h").content.decode()
    assert f'data-keeps-range="1" href="/servers/{server.pk}/statements/?range=1h"' in body
    dip_rows = body.split('<table class="dips">')[1].split("</table>")[0]
    query = parse_qs(html.unescape(dip_rows.split(f'href="/servers/{server.pk}/statements/?')[1].split('"')[0]))
    since, until = (datetime.fromisoformat(query[k][0]).replace(tzinfo=UTC) for k in ("from", "to"))
    # The slow polls at 300 s .. 350 s measured (290 s, 350 s]; the digest read covering the dip's last
    # second ends within a statements interval (60 s) of it.
    assert (since, until) == (start + timedelta(seconds=290), start + timedelta(seconds=350 + 60))


def test_the_statements_csv_answers_an_api_token(admin_user):
    server = ten_reads()
    token = ApiToken.issue(admin_user, "script")[1]
    rows = get_csv(Client(HTTP_AUTHORIZATION=f"Bearer {token}"), "/export/statements.csv", server=server.pk, **RANGE)
    assert rows[1][2] == SLEEPY.digest and Client().get("/export/statements.csv").status_code in (302, 401, 403)


def test_the_server_form_takes_10_s_and_refuses_less():
    base = {"name": "db", "host": "h", "port": 3306, "user": "u", "password": "p", "poll_interval": 10}
    assert ServerForm(base).is_valid() and ServerForm(base).save(commit=False).statements_interval == 60
    assert ServerForm({**base, "statements_interval": 10}).is_valid()
    form = ServerForm({**base, "statements_interval": 5})
    assert not form.is_valid() and "statements_interval" in form.errors


def test_a_statement_page_of_a_server_that_never_read_digests_says_why_and_how_to_turn_it_on(admin_client):
    db1 = ten_reads()
    point = digest_id(db1, POINT)  # a digest db1 ran: its text is shared by every server's pages
    lab = make_server("lab", poll_interval=10)
    # the words the source's poll stored for a server at its defaults (collectors.source.require_performance_schema)
    off = ("lab: statements: performance_schema is OFF on this server, so statements has nothing to read; "
           "set performance_schema=ON under [mariadb] in the server's option file and restart it")
    ServerHealth.objects.create(server=lab, last_poll_at=END, sources={"statements": {"status": "off", "ok": False,
                                                                                      "error": off}})
    body = admin_client.get(f"/servers/{lab.pk}/statements/{point}/", RANGE).content.decode()
    assert html.escape(off) in body
    assert "No statement digests recorded for lab in this range" in body
    assert ("the statements_digest consumer may be off: <code>UPDATE performance_schema.setup_consumers SET ENABLED = "
            "&#x27;YES&#x27; WHERE NAME IN (&#x27;global_instrumentation&#x27;, &#x27;statements_digest&#x27;);</code>"
            ) in body
    assert "Not among the top statements" not in body
    # db1 read digests in the range: its page has its figures and no such sentence
    ran = admin_client.get(f"/servers/{db1.pk}/statements/{point}/", RANGE).content.decode()
    assert "No statement digests recorded" not in ran and "source-problem" not in ran
