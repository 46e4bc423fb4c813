"""The "rank monitoring reads" checkbox submits itself under the Content-Security-Policy and restores the ranking."""

import pytest

from testing.dashboards import TEN_MINUTES, make_server, write_run_data
from testing.statements import MS, Shape, write_reads

pytestmark = pytest.mark.browser
START, END = TEN_MINUTES
POLL = Shape("d-poll", "SELECT COUNT ( * ) FROM `performance_schema` . `threads` ", 6, 50 * MS, schema="")
UPDATE = Shape("d-update", "UPDATE `sbtest1` SET `k` = `k` + ? WHERE `id` = ? ", 100, 2 * MS, schema="sbtest")


def test_the_checkbox_ranks_the_monitoring_reads_with_the_rest(page, live_server):
    server = make_server("db-own-reads", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10, shapes=(POLL, UPDATE))  # the poll 3.0 s, the UPDATE 2.0 s
    page.goto(f"{live_server.url}/servers/{server.pk}/statements/?from={START.isoformat()}&to={END.isoformat()}"
              .replace("+", "%2B"))
    rows = page.locator("table.statements tbody tr")
    assert rows.count() == 1 and "d-update" in rows.first.inner_text()
    assert "Monitoring reads: 60 executions, 3.00 s" in page.inner_text(".monitoring-reads")
    page.click("input[name=monitoring]")
    page.wait_for_url("**monitoring=1**", timeout=10_000)
    rows = page.locator("table.statements tbody tr")
    assert rows.count() == 2 and "d-poll" in rows.first.inner_text() and "monitoring" in rows.first.inner_text()
