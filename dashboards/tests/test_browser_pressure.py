"""The purge holders chart, the pressure page and the replication page in headless Chromium."""

from datetime import timedelta

import pytest
from django.utils import timezone

from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.browser import open_chart, screenshot
from testing.dashboards import make_server

pytestmark = pytest.mark.browser
POLLS = 40


def samples(server, end) -> list[Sample]:
    out = []
    for i in range(POLLS):
        ts = end - timedelta(seconds=10 * (POLLS - 1 - i))
        out += [Sample(server.pk, "oldest_trx", ts, 10.0, {"trx_oldest_age_s": 10 * i, "trx_read_view_age_s": 10 * i,
                                                            "trx_older_60s": int(i > 6)}),
                Sample(server.pk, "history_length", ts, 10.0, {"history_list_length": 500 + 40 * i}),
                Sample(server.pk, "global_status", ts, 10.0,
                       {"Innodb_checkpoint_age": 2**20 * i, "Innodb_checkpoint_max_age": 2**20 * 38,
                        "Innodb_buffer_pool_pages_dirty": 50 + i, "Innodb_buffer_pool_pages_free": 900 - i,
                        "Innodb_buffer_pool_pages_flushed": 7 * i, "Handler_write": 30, "Handler_update": 20 + i,
                        "Handler_delete": 1, "Innodb_row_lock_waits": i % 3, "Innodb_row_lock_current_waits": 0},
                       frozenset({"Innodb_buffer_pool_pages_flushed", "Handler_write", "Handler_update",
                                  "Handler_delete", "Innodb_row_lock_waits"})),
                Sample(server.pk, "replication", ts, 10.0, {"replica.lag_s": i, "replica.io_running": 1,
                                                             "replica.sql_running": int(i < 30)})]
    return out


def test_the_new_charts_draw_with_data(page, live_server):
    server = make_server("db-pressure")
    end = timezone.now()
    write_samples(samples(server, end))
    TrxHolder.objects.create(server=server, thread_id=4711, trx_key="k", user="report", host="10.0.0.7:5123",
                             state="RUNNING, Sleep", isolation="REPEATABLE READ", statement="SELECT * FROM sales",
                             idle=True, started_at=end - timedelta(seconds=390), seen_at=end)
    base = f"{live_server.url}/servers/{server.pk}"
    for name, url, chart in (("purge-holders", f"{base}/purge/?range=1h", "oldest-trx-chart"),
                             ("pressure", f"{base}/pressure/?range=1h", "pressure-chart"),
                             ("replication", f"{base}/replication/?range=1h", "replication-chart")):
        points = open_chart(page, url, chart)
        assert points and max(points) >= POLLS - 1, (name, points)
        screenshot(page, f"dashboards-{name}")
    page.goto(f"{base}/purge/?range=1h")
    assert "report@10.0.0.7:5123" in page.locator("#holders").inner_text()
