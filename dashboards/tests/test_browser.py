"""The pages in headless Chromium on the live server: charts drawn with data, zoom, runs, escaping."""

import json
import time
from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from dashboards.models import ApiToken
from servers.models import Annotation, Run, Server
from testing.browser import open_chart, screenshot
from testing.dashboards import EVIL, make_server, write_polls

pytestmark = pytest.mark.browser




def svg_texts(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def test_every_page_draws_its_charts_with_data(page, live_server):
    server = make_server("db-lab1", tags=["lab"])
    start = write_polls(server, 120)
    run_a = Run.objects.create(name="before", server=server, started_at=start, ended_at=start + timedelta(minutes=8))
    run_b = Run.objects.create(name="after", server=server, started_at=start + timedelta(minutes=10))
    Annotation.objects.create(server=server, at=start + timedelta(minutes=9), text="innodb_flush_neighbors=0")
    base = f"{live_server.url}/servers/{server.pk}"
    charts = {
        "stability": (f"{base}/stability/?range=1h", "stability-chart"),
        "purge": (f"{base}/purge/?range=1h", "purge-chart"),
        "explore": (f"{live_server.url}/explore/?server={server.pk}&metric=tps&metric=qps", "explore-chart"),
        "compare": (f"{live_server.url}/compare/?runs={run_a.pk},{run_b.pk}", "compare-chart"),
    }
    for name, (url, chart) in charts.items():
        points = open_chart(page, url, chart)
        assert points and max(points) > 10, (name, points)
        screenshot(page, f"dashboards-{name}")
    page.goto(f"{base}/waits/?range=1h")
    assert page.locator("table.waits tbody tr").count() == 3
    screenshot(page, "dashboards-waits")
    page.goto(live_server.url + "/")
    assert page.locator("table.fleet").inner_text().count("db-lab1") == 1
    screenshot(page, "dashboards-fleet")
    page.goto(live_server.url + "/runs/")
    screenshot(page, "dashboards-runs")
    page.check(f"input[name=runs][value='{run_a.pk}']")
    page.check(f"input[name=runs][value='{run_b.pk}']")
    page.click("button[formaction='/reports/compare/']")
    page.wait_for_url("**/reports/compare/?runs=*")
    assert "before" in page.content() and "after" in page.content()
    page.goto(live_server.url + "/tokens/")
    page.fill("input[name=name]", "sysbench runner")
    page.click("form.card button[type=submit]")
    assert page.locator("#new-token").inner_text().startswith("sst_")
    screenshot(page, "dashboards-tokens")
    mid = start + timedelta(minutes=10)
    page.goto(f"{base}/waits/?from={start:%Y-%m-%dT%H:%M:%S}&to={mid:%Y-%m-%dT%H:%M:%S}"
              f"&from2={mid:%Y-%m-%dT%H:%M:%S}&to2={timezone.now():%Y-%m-%dT%H:%M:%S}")
    assert page.locator("table.waits-diff tbody tr").count() == 3
    screenshot(page, "dashboards-waits-two-intervals")


def test_zoom_on_one_row_zooms_all_and_keeps_the_view_in_the_url(page, live_server):
    server = make_server()
    start = write_polls(server, 120)
    open_chart(page, f"{live_server.url}/servers/{server.pk}/stability/?range=1h", "stability-chart")
    lo, hi = start + timedelta(minutes=5), start + timedelta(minutes=10)
    x0, x1 = lo.strftime("%Y-%m-%d %H:%M:%S"), hi.strftime("%Y-%m-%d %H:%M:%S")
    ranges = page.evaluate(
        """([a, b]) => Plotly.relayout('stability-chart', {'xaxis3.range': [a, b]}).then(() => {
             const l = document.getElementById('stability-chart')._fullLayout;
             return [l.xaxis.range, l.xaxis2.range, l.xaxis3.range];
           })""", [x0, x1])
    assert all(r[0].startswith(x0[:16]) and r[1].startswith(x1[:16]) for r in ranges), ranges
    assert f"from={lo:%Y-%m-%dT%H}%3A{lo:%M}%3A{lo:%S}" in page.url and "range=" not in page.url
    assert page.locator(".zoomed-link").is_visible()
    page.click(".zoomed-link")  # the URL alone brings the zoomed view back, in more detail
    page.wait_for_selector("#stability-chart[data-ready='1']")
    xs = page.evaluate("() => document.getElementById('stability-chart').data[0].x")
    assert lo.timestamp() * 1000 - 1000 <= xs[0] and xs[-1] <= hi.timestamp() * 1000 + 1000
    screenshot(page, "dashboards-stability-zoomed")


def test_a_run_posted_to_the_api_appears_on_the_chart(page, live_server, admin_user):
    server = make_server()
    start = write_polls(server, 60)
    raw = ApiToken.issue(admin_user, "runner")[1]
    response = page.request.post(
        f"{live_server.url}/api/runs", headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        data=json.dumps({"name": "sysbench rw 64", "server": server.name,
                         "started_at": (start + timedelta(minutes=2)).isoformat()}))
    assert response.status == 201, response.text()
    open_chart(page, f"{live_server.url}/servers/{server.pk}/stability/?range=1h", "stability-chart")
    labels = page.evaluate("() => document.getElementById('stability-chart').layout.annotations.map(a => a.text)")
    assert "run: sysbench rw 64" in labels
    assert page.locator("#stability-chart .annotation-text", has_text="run: sysbench rw 64").count() == 1


def test_compare_aligns_two_runs_at_zero(page, live_server):
    a, b = make_server("a"), make_server("b")
    now = timezone.now()
    start_a = write_polls(a, 40, end=now - timedelta(hours=2))
    start_b = write_polls(b, 40, end=now)
    runs = [Run.objects.create(name=n, server=s, started_at=t, ended_at=t + timedelta(minutes=6))
            for n, s, t in (("run-a", a, start_a), ("run-b", b, start_b))]
    open_chart(page, f"{live_server.url}/compare/?runs={runs[0].pk},{runs[1].pk}", "compare-chart")
    firsts = page.evaluate("""() => document.getElementById('compare-chart').data
                               .filter(t => t.yaxis === 'y').map(t => [t.name, t.x[0], t.x[t.x.length - 1]])""")
    started = [f"{t.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" for t in (start_a, start_b)]
    assert [f[0] for f in firsts] == [f"run-a (a, {started[0]})", f"run-b (b, {started[1]})"]
    assert all(0 <= f[1] <= 10 and 300 <= f[2] <= 360 for f in firsts), firsts
    assert page.locator("table.compare-summary tbody tr").count() == 2
    screenshot(page, "dashboards-compare-two-servers")


def test_names_from_servers_show_as_text(page, live_server):
    server = make_server(EVIL)
    write_polls(server, 40, events=(EVIL, "wait/io/file/sql/binlog"))
    Annotation.objects.create(server=server, at=timezone.now() - timedelta(minutes=2), text=EVIL)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_chart(page, f"{live_server.url}/servers/{server.pk}/stability/?range=1h", "stability-chart")
    assert EVIL in page.locator("h1").inner_text()
    assert EVIL in svg_texts(page, "#stability-chart .legendtext")  # Plotly shows it as text
    assert EVIL in svg_texts(page, "#stability-chart .annotation-text")
    screenshot(page, "dashboards-escaping")
    for url in ("/", f"/servers/{server.pk}/waits/", "/runs/"):
        page.goto(live_server.url + url)
        assert EVIL in page.inner_text("main"), url
    assert dialogs == []


def test_real_polls_of_mariadb_draw_the_stability_view(page, live_server, mariadb, monitor_credentials):
    from collectors.batch import poll_server

    server = Server(name="sandbox-mariadb", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    mariadb.execute("CREATE DATABASE IF NOT EXISTS dash_load",
                    "CREATE TABLE IF NOT EXISTS dash_load.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    for i in range(4):
        # Explicit transactions: autocommitted statements do not count in Com_commit.
        mariadb.execute(*["BEGIN", f"INSERT INTO dash_load.t (v) VALUES ({i})", "COMMIT"] * 20)
        result = poll_server(server.pk)
        assert not result.connect_error, result.connect_error
        time.sleep(1.1)
    points = open_chart(page, f"{live_server.url}/servers/{server.pk}/stability/?range=15m", "stability-chart")
    assert points[0] >= 2, points  # TPS deltas
    assert sum(1 for n in points[1:] if n) >= 2, points  # waits from performance_schema
    screenshot(page, "dashboards-stability-real-mariadb")
    page.goto(live_server.url + "/")
    assert "up" in page.locator("table.fleet .state").first.inner_text()
    screenshot(page, "dashboards-fleet-real-mariadb")
