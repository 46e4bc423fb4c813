"""The dashboard pages over real store data (Django test client logged in as admin, no browser)."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from servers.models import Annotation, Run
from testing.dashboards import EVIL, MUTEX, TRX_SYS, csv_rows, figures, make_server, write_polls

pytestmark = pytest.mark.django_db


def test_it_requires_login():
    for url in ("/", "/servers/1/stability/", "/explore/", "/runs/", "/compare/", "/tokens/"):
        assert Client().get(url).status_code == 302, url


def test_stability_page_draws_tps_waits_and_mutexes(admin_client):
    server = make_server()
    write_polls(server, 90)
    response = admin_client.get(f"/servers/{server.pk}/stability/?range=1h")
    assert response.status_code == 200
    fig = figures(response)["stability-chart"]
    by_axis = {}
    for trace in fig["data"]:
        by_axis.setdefault(trace["yaxis"], []).append(trace)
    assert len(by_axis["y"][0]["x"]) == 89  # TPS: one point per poll with deltas
    assert TRX_SYS in [t["name"] for t in by_axis["y2"]]
    assert [t["name"] for t in by_axis["y3"]] == [MUTEX]
    body = response.content.decode()
    assert "TPS = transactions per second" in body  # never polled by a collector: the general wording
    assert "/export.csv?server=" in body and "metrics=tps" in body
    assert "lowest TPS" in body  # the stall at polls 30..35 is listed as a dip
    assert any(s["type"] == "rect" for s in fig["layout"]["shapes"])


def test_a_servers_pages_say_how_its_tps_is_counted(admin_client):
    from collectors.models import ServerHealth

    server = make_server()
    write_polls(server, 10)
    note = ("TPS = (Com_commit + Com_rollback) per second: explicit transactions only, autocommit statements "
            "are not counted on this server; to count autocommit transactions too, turn on ...")
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": note}})
    for page in ("stability", "purge"):
        body = admin_client.get(f"/servers/{server.pk}/{page}/?range=1h").content.decode()
        assert "autocommit statements are not counted on this server" in body, page


def test_points_stay_below_the_chart_width(admin_client):
    server = make_server()
    write_polls(server, 400)
    fig = figures(admin_client.get(f"/servers/{server.pk}/stability/?range=6h&w=150"))["stability-chart"]
    assert 0 < len(fig["data"][0]["x"]) <= 150


def test_the_chart_csv_has_rows_on_a_round_step_with_each_buckets_mean(admin_client):
    from testing.dashboards import tps_at

    server = make_server()
    start = write_polls(server, 400)
    response = admin_client.get(f"/servers/{server.pk}/stability/?range=6h&w=150")
    link = re.search(r'href="(/export\.csv\?[^"]+)"', response.content.decode()).group(1)
    assert "w=150" in link and "step=" not in link
    rows = csv_rows(admin_client, link)
    col = rows[0].index("db1 tps (/s)")
    got = {datetime.fromisoformat(r[0]): float(r[col]) for r in rows[1:] if r[col]}
    assert all(t.timestamp() % 300 == 0 for t in got)  # 6 h over 150 points: 144 s bins, a 5-minute step
    polls = {i: start + timedelta(seconds=10 * i) for i in range(1, 400)}  # poll 0 has no delta
    for t, value in got.items():
        rates = [tps_at(i) / 10 for i, at in polls.items() if t <= at < t + timedelta(seconds=300)]
        assert value == pytest.approx(sum(rates) / len(rates), rel=1e-5)
    assert len(got) >= 400 * 10 // 300


def test_purge_page_shows_growth_and_the_counters_that_are_off(admin_client):
    server = make_server()
    write_polls(server, 60, growth=25)
    response = admin_client.get(f"/servers/{server.pk}/purge/")
    body = response.content.decode()
    fig = figures(response)["purge-chart"]
    names = [t["name"] for t in fig["data"]]
    assert "innodb_max_purge_lag 50,000 (above this scale)" in names and "purge_del_mark_records" in names
    assert "150.0 / min" in body  # 25 per 10 s poll
    assert "innodb_metrics:purge_undo_log_pages" in body and "innodb_monitor_enable = &#x27;purge%&#x27;" in body


def test_top_waits_table_and_two_intervals(admin_client):
    server = make_server()
    start = write_polls(server, 60)
    mid = start + timedelta(minutes=5)
    q = f"from={start:%Y-%m-%dT%H:%M:%S}&to={mid:%Y-%m-%dT%H:%M:%S}&from2={mid:%Y-%m-%dT%H:%M:%S}"
    response = admin_client.get(f"/servers/{server.pk}/waits/?{q}&to2={timezone.now():%Y-%m-%dT%H:%M:%S}")
    body = response.content.decode()
    assert body.index("trx_sys_mutex") < body.index("innodb_data_file")  # biggest total first
    assert "Before → after" in body and "CSV A" not in body
    link = re.search(r'href="(/export/topwaits\.csv\?[^"]*from2=[^"]+)"', body).group(1)
    rows = csv_rows(admin_client, link)  # one file: both intervals side by side, as the table
    assert len(rows) == 4 and any("B" in h for h in rows[0]) and rows[1][0] == TRX_SYS


def test_explorer_draws_any_metric_of_several_servers(admin_client):
    a, b = make_server("a"), make_server("b")
    write_polls(a, 30)
    write_polls(b, 30)
    fig = figures(admin_client.get(f"/explore/?server={a.pk}&server={b.pk}&metric=tps&pattern=history_*"))
    assert sorted(t["name"] for t in fig["explore-chart"]["data"]) == [
        "a · history_list_length (undo log units)", "a · tps (/s)", "b · history_list_length (undo log units)",
        "b · tps (/s)"]


def test_fleet_shows_each_server_now(admin_client):
    server = make_server("db-fleet", tags=["lab"])
    make_server("idle", tags=["prod"])
    write_polls(server, 30)
    body = admin_client.get("/?tag=lab").content.decode()
    assert "db-fleet" in body and "idle</strong>" not in body
    assert "never polled" in body and "↑" in body and "trx_sys_mutex" in body


def test_compare_aligns_runs_and_summarizes(admin_client):
    server = make_server()
    start = write_polls(server, 90)
    r1 = Run.objects.create(name="r1", server=server, started_at=start, ended_at=start + timedelta(minutes=5))
    r2 = Run.objects.create(name="r2", server=server, started_at=start + timedelta(minutes=7),
                            ended_at=start + timedelta(minutes=14))
    Annotation.objects.create(server=server, at=start + timedelta(minutes=9), text="purge threads=4")
    response = admin_client.get(f"/compare/?runs={r1.pk},{r2.pk}")
    fig = figures(response)["compare-chart"]
    notes = [(s["x0"], a["text"]) for s, a in zip(fig["layout"]["shapes"], fig["layout"]["annotations"][3:],
                                                  strict=True)]
    assert notes == [(120.0, "r2: purge threads=4")]  # 2 min into the run that started at 7 min
    tps = [t for t in fig["data"] if t["yaxis"] == "y"]
    assert len(tps) == 2 and all(0 <= t["x"][0] <= 10 for t in tps)
    body = response.content.decode()
    assert "/export/compare.csv?runs=" in body and TRX_SYS in body


def test_compare_summarizes_every_sample_as_the_report_and_csv_do(admin_client):
    from dashboards.reports.summary import summarize_run

    server = make_server()
    start = write_polls(server, 1500, step=2)  # more polls than a chart's points
    run = Run.objects.create(name="long", server=server, started_at=start, ended_at=start + timedelta(seconds=2998))
    response = admin_client.get(f"/compare/?runs={run.pk}&w=150")
    (row,) = response.context["summaries"]
    assert row.summary.tps.points == 1499  # every poll with a delta, not the chart's 150 or 1200
    assert row.summary == summarize_run(run)
    rows = csv_rows(admin_client, f"/export/compare.csv?runs={run.pk}")
    assert float(rows[1][rows[0].index("p5 TPS (/s)")]) == pytest.approx(row.summary.tps.p5)
    assert [w.event for w in row.waits][:1] == [TRX_SYS]


def test_annotations_and_runs_are_drawn_on_the_charts(admin_client):
    server = make_server()
    start = write_polls(server, 30)
    Annotation.objects.create(server=server, at=start + timedelta(minutes=1), text="flush_neighbors=0")
    Run.objects.create(name="sysbench", server=server, started_at=start)
    fig = figures(admin_client.get(f"/servers/{server.pk}/stability/"))["stability-chart"]
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert "flush_neighbors=0" in texts and "run: sysbench" in texts


def test_names_from_servers_are_escaped(admin_client):
    server = make_server(EVIL)
    write_polls(server, 20, events=(EVIL,))
    Annotation.objects.create(server=server, at=timezone.now() - timedelta(minutes=1), text=EVIL)
    for url in ("/", f"/servers/{server.pk}/stability/", f"/servers/{server.pk}/waits/", "/runs/"):
        body = admin_client.get(url).content.decode()
        assert EVIL not in body, url
        assert "&lt;script&gt;" in body, url
    fig = figures(admin_client.get(f"/servers/{server.pk}/stability/"))["stability-chart"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in [t["name"] for t in fig["data"]]


def test_runs_page_marks_a_run_and_an_annotation(admin_client):
    server = make_server()
    response = admin_client.post("/runs/", {"run-name": "rw-32", "run-server": server.pk,
                                      "run-started_at": "2026-01-05T12:00:00", "run-notes": ""})
    assert response.status_code == 302
    admin_client.post("/runs/", {"note-server": server.pk, "note-at": "2026-01-05T12:05:00", "note-text": "restart"})
    run = Run.objects.get()
    assert run.started_at == datetime(2026, 1, 5, 12, tzinfo=UTC)
    assert Annotation.objects.get().text == "restart"
    assert "rw-32" in admin_client.get("/runs/").content.decode()


def test_runs_page_links_each_report_and_the_compare_report(admin_client):
    server = make_server()
    start = write_polls(server, 30)
    run = Run.objects.create(name="rw-32", server=server, started_at=start, ended_at=start + timedelta(minutes=4))
    body = admin_client.get("/runs/").content.decode()
    assert f'href="/runs/{run.pk}/report/"' in body
    assert 'action="/compare/"' in body and 'formaction="/reports/compare/"' in body
    # The ticked boxes reach the report as runs=1&runs=2, which it reads.
    report = admin_client.get("/reports/compare/", {"runs": [run.pk]})
    assert report.status_code == 200 and "rw-32" in report.content.decode()


def test_an_unreadable_range_falls_back_to_the_default(admin_client):
    server = make_server()
    response = admin_client.get(f"/servers/{server.pk}/stability/?from=yesterday&to=&w=abc")
    assert response.status_code == 200 and "last 1h" in response.content.decode()


def test_recorded_gaps_are_shaded(admin_client):
    from store.models import Gap  # the store records these itself; a test has to plant one

    server = make_server()
    start = write_polls(server, 60)
    Gap.objects.create(server_id=server.pk, start=start + timedelta(minutes=2), end=start + timedelta(minutes=3),
                       reason="buffer overflow")
    fig = figures(admin_client.get(f"/servers/{server.pk}/stability/"))["stability-chart"]
    assert "no data: buffer overflow" in [a["text"] for a in fig["layout"]["annotations"]]


def test_the_fleet_lists_firing_alerts(admin_client):
    from alerts.models import Event, Rule

    server = make_server()
    rule = Rule.objects.create(name="history length above 1M", kind=Rule.THRESHOLD, metric="history_list_length",
                               threshold=1e6)
    now = timezone.now()
    Event.objects.create(rule=rule, server=server, since=now, opened_at=now, value=2e6)
    Event.objects.create(rule=rule, server=server, key="old", since=now, opened_at=now, resolved_at=now)
    body = admin_client.get("/").content.decode()
    assert body.count("history length above 1M") == 1 and 'class="alert-pill"' in body


@pytest.mark.parametrize("query, said", [
    ("from=garbage", "from=&#x27;garbage&#x27; is not a time"),
    ("from=2026-01-05T11:00&to=2026-01-05T10:00", "swapped"),
    ("range=abc", "range=&#x27;abc&#x27; is not one of"),
    ("from=0001-01-01T00:00&to=9999-12-31T23:59", "range is cut to"),
    ("from=inf", "from=&#x27;inf&#x27; is not a time"),
])
def test_a_bad_range_is_said_on_every_page_never_a_500(admin_client, query, said):
    server = make_server()
    write_polls(server, 30)
    for page in ("stability", "purge", "waits"):
        response = admin_client.get(f"/servers/{server.pk}/{page}/?{query}")
        assert response.status_code == 200 and said in response.content.decode(), page
    bad_b = admin_client.get(f"/servers/{server.pk}/waits/?range=1h&from2=2026-02-30T10:00&to2=2026-03-01T10:00")
    assert "interval B needs two times" in bad_b.content.decode()


def test_bad_times_are_a_400_in_the_api_and_the_csv(admin_client, admin_user):
    from dashboards.models import ApiToken

    server = make_server()
    raw = ApiToken.issue(admin_user, "t")[1]
    response = admin_client.post("/api/annotations", {"server": server.name, "text": "x", "at": "2026-02-30T10:00:00Z"},
                           content_type="application/json", headers={"Authorization": f"Bearer {raw}"})
    assert response.status_code == 400 and "ISO 8601" in response.json()["error"]
    for bad in ("from=inf", "from=1e30", "from=0001-01-01T00:00&to=9999-12-31T23:59", "from=nan"):
        response = admin_client.get(f"/export.csv?server={server.pk}&metrics=tps&{bad}")
        assert response.status_code == 400, bad


def test_purge_page_says_draining_above_since_and_refuses_a_negative_threshold(admin_client):
    from store.ingest import write_samples
    from store.sample import Sample

    server = make_server()
    now = timezone.now().replace(microsecond=0)
    # 25 minutes of growth (a read view held open), then purge catches up in 4 minutes: 124 left.
    lengths = [10_000 + 600 * i for i in range(250)] + [120_000 - 30_000 * k for k in range(1, 4)] + [124] * 21
    start = now - timedelta(seconds=10 * (len(lengths) - 1))
    write_samples(Sample(server.pk, "history_length", start + timedelta(seconds=10 * i), None,
                         {"history_list_length": v}) for i, v in enumerate(lengths))
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=1h&threshold=20000").content.decode()
    # Drained, then flat at 124 for 21 polls: flat since it came down to 124, not "draining".
    flat_since = start + timedelta(seconds=10 * 253)
    assert "reached in" not in body and "above it since" not in body and "below it, not growing" in body
    trend = body.split('id="trend-now"')[1].split("</section>")[0]
    assert ">flat<" in trend and f"since {flat_since:%H:%M:%S} UTC: 21 polls over 3 min 20 s" in trend
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=1h&threshold=100").content.decode()
    assert "above it since" in body  # 124 > 100 since the line came down to it
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=1h&threshold=-5").content.decode()
    assert "threshold=&#x27;-5&#x27; must be a positive history length" in body
    fleet = admin_client.get("/").content.decode()
    assert "→ flat" in fleet and "↑" not in fleet.split("<tbody>")[1]
    assert f"since {flat_since:%H:%M:%S} UTC" in fleet


def test_the_explorer_empty_chart_shows_the_range_not_the_year_2000(admin_client):
    fig = figures(admin_client.get("/explore/?range=6h"))["explore-chart"]
    start, end = (datetime.fromisoformat(x).replace(tzinfo=UTC) for x in fig["layout"]["xaxis"]["range"])
    assert end - start == timedelta(hours=6) and abs(end - timezone.now()) < timedelta(minutes=1)


@pytest.mark.parametrize("field, value, message", [
    ("run-concurrency", "0", "greater than or equal to 1"),
    ("run-concurrency", "1000001", "less than or equal to 1000000"),
    ("run-warmup_seconds", "604801", "less than or equal to 604800"),
])
def test_runs_page_refuses_what_the_api_refuses(admin_client, field, value, message):
    """Seen: a run marked with 0 threads was saved and listed with "0", and the Scalability page then refused it
    as having no concurrency; POST /api/runs refuses 0 ("a whole number from 1"), and warm-ups over 7 days."""
    server = make_server()
    response = admin_client.post("/runs/", {"run-name": "r", "run-server": server.pk,
                                            "run-started_at": "2026-01-05T12:00:00", field: value})
    assert response.status_code == 200 and message in response.content.decode()
    assert not Run.objects.exists()


def test_a_steep_rise_over_few_polls_reads_growing_in_the_trend_box_and_the_fleet(admin_client):
    """A load's first polls, 10 s apart: 0, 0, 27,305, 48,499. The verdict said "Growing ... too few polls" while
    the trend box beside it said "flat" and the threshold box "below it, not growing". By hand, the least-squares
    slope over x = 0, 10, 20, 30 s (mean 15): sum((x - 15) * y) = 5 * 27,305 + 15 * 48,499 = 864,010 over
    sum((x - 15)^2) = 500, 1,728.02/s or 103,681.2 / min: growing, on the page and the fleet alike."""
    from store.ingest import write_samples
    from store.sample import Sample

    server = make_server()
    now = timezone.now().replace(microsecond=0)
    lengths = [0, 0, 27_305, 48_499]
    start = now - timedelta(seconds=10 * (len(lengths) - 1))
    write_samples(Sample(server.pk, "history_length", start + timedelta(seconds=10 * i), None,
                         {"history_list_length": v}) for i, v in enumerate(lengths))
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=1h").content.decode()
    trend = body.split('id="trend-now"')[1].split("</div></div>")[0]
    assert "growing 103,681.2 / min" in trend and ">flat<" not in trend
    assert "below it, not growing" not in body
    fleet = admin_client.get("/").content.decode().split("<tbody>")[1]
    assert "→ flat" not in fleet
