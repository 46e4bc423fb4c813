"""Run and comparison reports: settings and what changed, summary figures, charts, top waits."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from servers.models import Run
from store.ingest import write_samples
from testing import dashboards as data
from testing.browser import screenshot

POLLS = 121  # 20 minutes at 10 s
FIRST, SECOND = data.RECENT_T0, data.RECENT_T0 + timedelta(hours=1)
WIDTHS = "els => els.map(e => e.getBoundingClientRect().width)"
SETTINGS = {"innodb_max_purge_lag": 0, "innodb_thread_concurrency": 0, "innodb_buffer_pool_size": 134217728}


def lab() -> tuple[Run, Run]:
    """Two runs on db1: innodb_thread_concurrency 0 -> 16 between them, max_purge_lag set during the second."""
    server = data.make_server("db1")
    write_samples([data.variables(server.pk, FIRST - timedelta(minutes=5), SETTINGS)])
    data.write_run_data(server.pk, FIRST, POLLS)
    write_samples([data.variables(server.pk, SECOND - timedelta(minutes=1), {"innodb_thread_concurrency": 16})])
    data.write_run_data(server.pk, SECOND, POLLS, base=7000)
    write_samples([data.variables(server.pk, SECOND + timedelta(minutes=10), {"innodb_max_purge_lag": 5000})])
    end = timedelta(seconds=10 * (POLLS - 1))
    before = Run.objects.create(name="concurrency 0", server=server, started_at=FIRST, ended_at=FIRST + end)
    after = Run.objects.create(name="concurrency 16", server=server, started_at=SECOND, ended_at=SECOND + end,
                               notes="sysbench OLTP_RW, 32 threads")
    return before, after


def mean_tps(base: int) -> float:
    rates = [data.tps_delta(i, base) / 10 for i in range(1, POLLS)]
    return sum(rates) / len(rates)


@pytest.mark.django_db
def test_it_reports_settings_changes_summary_and_waits(client, admin_user):
    client.force_login(admin_user)
    before, after = lab()
    response = client.get(f"/runs/{after.pk}/report/")
    assert response.status_code == 200
    ctx = response.context
    assert ctx["previous"] == before
    assert ctx["changes"] == [{"name": "innodb_thread_concurrency", "before": "0", "after": "16"}]
    settings = {s["name"]: s for s in ctx["settings"]}
    assert settings["innodb_buffer_pool_size"]["value"] == "134217728"
    assert settings["innodb_max_purge_lag"] == {"name": "innodb_max_purge_lag", "value": "0", "changed": True}
    summary = ctx["summary"]
    assert summary.tps.mean == pytest.approx(mean_tps(7000))
    assert summary.tps.p5 < summary.tps.mean < summary.tps.p95
    assert summary.max_history == 1000 + 40 * (POLLS - 1)
    assert [w.event for w in ctx["waits"]] == [data.TRX_SYS, data.LOG_SYS_MUTEX, data.DATA_IO]
    assert [round(d.lowest, 1) for d in ctx["dips"]] == [data.tps_delta(30, 7000) / 10, data.tps_delta(90, 7000) / 10]
    stability = ctx["figures"]["chart-stability"]
    assert [t["name"] for t in stability["data"]][:2] == ["TPS", "dip threshold"]
    assert len(stability["data"][0]["x"]) == POLLS - 1
    html = response.content.decode()
    assert "sysbench OLTP_RW, 32 threads" in html and "/export/topwaits.csv?" in html
    assert f"/reports/compare/?runs={before.pk},{after.pk}" in html


@pytest.mark.django_db
def test_the_comparison_is_the_seeds_table(client, admin_user):
    client.force_login(admin_user)
    before, after = lab()
    response = client.get("/reports/compare/", {"runs": f"{before.pk},{after.pk}"})
    assert response.status_code == 200
    first, second = response.context["rows"]
    assert first["ratio"] == 1.0
    assert second["ratio"] == pytest.approx(mean_tps(7000) / mean_tps(5000))
    assert second["changes"] == [{"name": "innodb_thread_concurrency", "before": "0", "after": "16"}]
    typed = client.get("/reports/compare/", {"runs": f"{after.pk},{before.pk}"}).context["rows"]
    assert [r["summary"].run for r in typed] == [after, before]  # a typed list keeps its order
    ticked = client.get(f"/reports/compare/?runs={after.pk}&runs={before.pk}").context["rows"]
    assert [r["summary"].run for r in ticked] == [before, after]  # ticked ones: oldest first
    assert "×1.00" in response.content.decode()


@pytest.mark.django_db
def test_a_wrong_run_list_says_so_and_offers_a_choice(client, admin_user):
    client.force_login(admin_user)
    lab()
    response = client.get("/reports/compare/", {"runs": "1,abc"})
    assert response.status_code == 400
    assert "give run ids" in response.content.decode()
    assert client.get("/runs/999999/report/").status_code == 404


@pytest.mark.browser
def test_the_report_renders_in_chromium_and_prints(page, live_server):
    before, after = lab()
    page.goto(f"{live_server.url}/runs/{after.pk}/report/")
    for chart in ("chart-stability", "chart-purge"):
        page.wait_for_selector(f"#{chart}[data-ready='1']", timeout=20_000)
        points = page.evaluate("id => document.getElementById(id).data[0].x.length", chart)
        assert points > 100, chart
    assert page.locator("#top-waits tbody tr").count() == 3
    assert page.locator("#changes tbody tr").count() == 1
    assert "innodb_thread_concurrency" in page.locator("#changes").inner_text()
    assert page.locator("#summary .figure").count() == 7
    screenshot(page, "report-run")
    page.emulate_media(media="print")
    assert not page.locator("header.top").is_visible()
    assert not page.locator(".downloads").is_visible()
    page.evaluate("window.reportForPaper()")  # what the Print button and beforeprint do
    widths = page.eval_on_selector_all(".report .chart .main-svg", WIDTHS)
    assert widths and max(widths) <= 700  # an A4 page's printable width
    screenshot(page, "report-run-print")
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    page.emulate_media(media="screen")
    page.goto(f"{live_server.url}/reports/compare/?runs={before.pk},{after.pk}")
    rows = page.locator("#compare-table tbody tr")
    assert rows.count() == 2
    assert "×1.00" in rows.nth(0).inner_text()
    assert "innodb_thread_concurrency: 0 → 16" in rows.nth(1).inner_text()
    screenshot(page, "report-compare")
    with page.expect_download() as download:
        page.click("text=CSV of this table")
    assert download.value.suggested_filename == f"compare-runs_{before.pk}_{after.pk}.csv"
    assert iso_utc(SECOND) in open(download.value.path()).read()


@pytest.mark.django_db
def test_a_run_without_data_says_why_instead_of_failing(client, admin_user):
    client.force_login(admin_user)
    quiet = data.make_server("quiet")
    run = Run.objects.create(name="still going", server=quiet, started_at=data.RECENT_T0)  # no end: up to now
    response = client.get(f"/runs/{run.pk}/report/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "now (still running)" in html
    assert "No wait events recorded for quiet" in html
    assert "No server variables recorded for quiet" in html
    assert "This is the first run on quiet" in html
    assert response.context["summary"].tps.mean is None
