"""A run's average TPS and QPS are its transactions over the seconds its polls cover, on every page.

The audit's run: from +100 s to +210 s, TPS polled at uneven intervals, two polls missed (one
30 s delta spans them), a counter reset (a poll with no delta), polls before and after the run.
"""

import statistics
from datetime import timedelta

import pytest

from dashboards.reports.summary import summarize_run
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, get_csv, make_server

pytestmark = pytest.mark.django_db
T0 = RECENT_T0
# (offset s, interval s, transactions); qps counts ten queries per transaction.
POLLS = [(90, 10, 1000), (103, 13, 5000), (110, 7, 700), (122, 12, 1800), (130, 8, 800), (160, 30, 3000),
         (180, 10, 1500), (190, 10, 1000), (205, 15, 1500), (215, 10, 99990)]
RESET_AT = 170

# By hand. No warm-up: the 7 polls ending at 110 .. 205 began at or after 100 and end by 210.
TRANSACTIONS, COVERED = 700 + 1800 + 800 + 3000 + 1500 + 1000 + 1500, 7 + 12 + 8 + 30 + 10 + 10 + 15
assert (TRANSACTIONS, COVERED) == (10_300, 92)
AVG_TPS, AVG_QPS = 10_300 / 92, 103_000 / 92  # 111.96, 1,119.6
# The per-poll rates, less the 30 s poll that spans the missed ones (its rate averages the outage).
RATES = [700 / 7, 1800 / 12, 800 / 8, 1500 / 10, 1000 / 10, 1500 / 15]  # 100, 150, 100, 150, 100, 100
# Warm-up 15 s: the window starts at +115; the polls at 110 (began 103) and 122 (began 110) are out.
WARM_TPS = (800 + 3000 + 1500 + 1000 + 1500) / (8 + 30 + 10 + 10 + 15)  # 7,800 / 73 = 106.85


@pytest.fixture
def run():
    server = make_server("db1")
    samples = [Sample(server.pk, "global_status", T0 + timedelta(seconds=at), float(interval),
                      {"tps": done, "qps": 10 * done}, frozenset({"tps", "qps"}))
               for at, interval, done in POLLS]
    samples.append(Sample(server.pk, "global_status", T0 + timedelta(seconds=RESET_AT), None,
                          {"Threads_running": 4}))  # counters reset: this poll carries no delta
    write_samples(samples)
    return Run.objects.create(name="uneven", server=server, started_at=T0 + timedelta(seconds=100),
                              ended_at=T0 + timedelta(seconds=210))


def compare_row(client, run: Run, **params) -> dict:
    header, row = get_csv(client, "/export/compare.csv", runs=run.pk, **params)
    return dict(zip(header, row, strict=True))


def test_it_averages_every_transaction_over_the_seconds_covered(run):
    s = summarize_run(run)
    assert s.tps.mean == pytest.approx(AVG_TPS) and s.qps == pytest.approx(AVG_QPS)
    assert (s.transactions, s.covered) == (TRANSACTIONS, COVERED)
    assert s.tps.points == 6
    assert (s.tps.p5, s.tps.p95) == (pytest.approx(100), pytest.approx(150))
    assert s.tps.cv == pytest.approx(statistics.pstdev(RATES) / statistics.fmean(RATES))


def test_the_warm_up_trim_leaves_its_polls_out_of_the_average(run):
    assert summarize_run(run, warmup=15).tps.mean == pytest.approx(WARM_TPS)


def test_the_report_the_runs_page_and_the_compare_csv_agree(admin_client, run):
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    assert "<b>112.0</b><span>avg TPS (/s)</span>" in report
    assert "<b>1,119.6</b><span>avg QPS (/s)</span>" in report and "116.7" not in report
    assert "over the 92 s those polls cover" in report and "per-poll rates of the 6 polls" in report
    assert ">112.0<" in admin_client.get("/runs/").content.decode()
    row = compare_row(admin_client, run)
    assert float(row["avg TPS (/s)"]) == pytest.approx(AVG_TPS)
    assert float(row["avg QPS (/s)"]) == pytest.approx(AVG_QPS)
    assert float(row["transactions"]) == TRANSACTIONS
    assert float(row["seconds covered by the TPS polls inside (s)"]) == COVERED


def test_the_compare_csv_applies_the_warm_up_trim(admin_client, run):
    assert float(compare_row(admin_client, run, warmup=15)["avg TPS (/s)"]) == pytest.approx(WARM_TPS)
    Run.objects.filter(pk=run.pk).update(warmup_seconds=15)
    assert f">{WARM_TPS:,.1f}<" in admin_client.get("/runs/").content.decode()  # 106.8, the runs page's own
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    assert f"<b>{WARM_TPS:,.1f}</b><span>avg TPS (/s)</span>" in report
