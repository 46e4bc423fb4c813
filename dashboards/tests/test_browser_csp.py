"""Under the Content-Security-Policy the pages run their scripts and nothing of theirs is blocked."""

from datetime import timedelta

import pytest

from servers.models import Run
from testing.dashboards import make_server, write_polls

pytestmark = pytest.mark.browser


def test_pages_work_under_the_policy_and_none_is_blocked(page, live_server):
    blocked = []
    page.on("console", lambda msg: blocked.append(msg.text) if "Content Security Policy" in msg.text else None)
    server = make_server("db-csp", tags=["lab"])
    start = write_polls(server, 60)
    run = Run.objects.create(name="r", server=server, started_at=start, ended_at=start + timedelta(minutes=8))
    page.goto(f"{live_server.url}/servers/{server.pk}/stability/?range=1h")
    page.wait_for_selector("#stability-chart[data-ready='1']", timeout=20_000)
    page.click("input[name=cond]")  # submits its form from static/js/page.js, not an inline handler
    page.wait_for_url("**cond=1**", timeout=10_000)
    page.goto(f"{live_server.url}/")
    page.select_option("select[name=tag]", "lab")
    page.wait_for_url("**tag=lab**", timeout=10_000)
    page.goto(f"{live_server.url}/runs/{run.pk}/report/")
    page.wait_for_selector(".chart[data-ready='1']", timeout=20_000)
    assert page.evaluate("typeof window.reportForPaper") == "function"  # static/js/report_print.js ran
    page.goto(f"{live_server.url}/reports/compare/?runs={run.pk}")
    assert page.locator("button[data-print]").count() == 1
    assert blocked == []
