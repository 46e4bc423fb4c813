"""Every CSV link a page shows answers its CSV, on a server that collects only some of the series a chart draws
(history length off, no PROCESS, no purge counters, no replica): the link asks for what the server has."""

import re
from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from testing import dashboards as data
from testing.dashboards import csv_rows

pytestmark = pytest.mark.django_db
POLLS = 61
START, END = data.RECENT_T0, data.RECENT_T0 + timedelta(seconds=10 * (POLLS - 1))
PAGES = ("stability", "purge", "waits", "pressure", "replication", "host", "statements")


@pytest.fixture
def status_only():
    """TPS, QPS and Threads_running polled every 10 s, and nothing else."""
    server = data.make_server("status-only", poll_interval=10)
    write_samples(list(data.global_status(server.pk, START, POLLS)))
    return server


def csv_links(html: str) -> list[str]:
    return sorted(set(re.findall(r'href="([^"]*\.csv[^"]*)"', html)))


def test_it_links_only_csvs_that_answer(admin_client, status_only):
    window = {"from": START.isoformat(), "to": END.isoformat()}
    for page in PAGES:
        html = admin_client.get(f"/servers/{status_only.pk}/{page}/", window).content.decode()
        for url in csv_links(html):
            assert admin_client.get(url.replace("&amp;", "&")).status_code == 200, (page, url)


def test_the_run_reports_series_csv_holds_what_the_server_collected(admin_client, status_only):
    run = Run.objects.create(name="r", server=status_only, started_at=START, ended_at=END)
    html = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    url = re.search(r'href="([^"]*)">CSV of the run\'s series', html).group(1)
    rows = csv_rows(admin_client, url)
    assert rows[0] == ["time (UTC)", "status-only qps (/s)", "status-only Threads_running (threads)",
                       "status-only tps (/s)"]
    # global_status(): poll i (i >= 1) counted tps_delta(i) transactions and 9 times as many queries, +i%7,
    # over 10 s, with 8 + i%5 threads running; the first poll only took a baseline.
    expected = [v for i in range(1, POLLS) for v in ((data.tps_delta(i) * 9 + i % 7) / 10, 8 + i % 5,
                                                     data.tps_delta(i) / 10)]
    assert [float(c) for row in rows[1:] for c in row[1:]] == pytest.approx(expected, rel=1e-6)
