"""A run older than the polls kept keeps its figures: averages and totals from its rollups' exact sums over the
whole minutes inside it, said as such on the runs page, the run report, the compare page and runs.csv."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.reports.summary import summarize_run
from dashboards.window_reads import run_tps
from servers.models import Run
from store import compaction, retention
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
T0 = NOW - timedelta(days=20)  # past the 14 days of polls, within the 90 days of 1-minute rollups


@pytest.fixture
def old_run():
    server = data.make_server("db1", poll_interval=10)
    # 10 s polls from T0 + 10 s: 100/s for the first 5 minutes, 300/s for the next 5.
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=10 * i), 10.0,
                          {"tps": 1000 if i <= 30 else 3000, "qps": 5000}, frozenset({"tps", "qps"}))
                   for i in range(1, 61)])
    compaction.compact_closed(NOW)
    retention.apply(NOW)
    # the run: 00:30 to 09:40 after T0, so its whole minutes are 1 to 8 (minute 0 and 9 are partial)
    return Run.objects.create(server=server, name="last month", started_at=T0 + timedelta(seconds=30),
                              ended_at=T0 + timedelta(minutes=9, seconds=40))


def test_an_old_runs_average_is_its_whole_minutes_exact_sum(old_run):
    # Minutes 1-8 by hand: a minute's polls are at :00 .. :50 of it; minutes 1-4 at 100/s (6 polls of 1,000),
    # minute 5 holds the polls at 5:00 (i=30, 1,000) and 5:10-5:50 (3,000 each); minutes 6-8 at 300/s.
    transactions = 4 * 6000 + (1000 + 5 * 3000) + 3 * 18000
    seconds = 8 * 60.0
    tps = run_tps(old_run)
    assert (tps.resolution, tps.samples, tps.transactions, tps.seconds) == ("1m", 8, transactions, seconds)
    summary = summarize_run(old_run)
    assert summary.resolution == "1m"
    assert summary.tps.mean == pytest.approx(transactions / seconds)  # 195.83
    assert summary.qps == pytest.approx(500.0)
    assert summary.transactions == transactions


def test_the_pages_say_an_old_runs_figures_come_from_rollups(admin_client, old_run):
    runs = admin_client.get("/runs/").content.decode()
    assert "195.8" in runs and "(1m rollups)" in runs
    report = admin_client.get(f"/runs/{old_run.pk}/report/").content.decode()
    assert "older than the polls kept" in report and "195.8" in report
    compare = admin_client.get("/compare/", {"runs": str(old_run.pk)}).content.decode()
    assert "from 1-minute rollups" in compare
    rows = data.get_csv(admin_client, "/export/runs.csv")
    resolution = rows[0].index("samples are (polls; 1m or 1h rollups past the raw retention)")
    assert rows[1][resolution] == "1m" and float(rows[1][9]) == pytest.approx(94000 / 480)
