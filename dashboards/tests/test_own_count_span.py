"""A load's own count is compared with the server's only over the same seconds.

Seen in the audit: `bench_run --warmup 10 --levels 1,2,4 -- sysbench ... --time=50` on sysbench 1.0 (no
--warmup-time): sysbench's summary rate (116.3 TPS) covered its whole run, its ramp included, the server's
(129.3 TPS) the 40 s after the run's warm-up. The page said "other clients: 10.0 % of the transactions" on a
server nothing else used, and read the sweep's knee from sysbench's whole-run rates (2 threads, not 1).
"""

import pytest

from servers.models import Run
from testing.dashboards import RECENT_T0, figures, make_server
from testing.scalability import BASELINE, WARMUP, by_hand, write_sweep

pytestmark = pytest.mark.django_db
COMMAND = ("sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 '--mysql-password=***' "
           "--threads={threads} --time=50{warmup} run")
OWN = {1: 500.0, 2: 1500.0, 4: 2100.0}  # sysbench's own rates: by them the step to 4 gains 60 %: no knee


def sysbench_sweep(name: str, warmup_time: str) -> list[Run]:
    """BASELINE's sweep (each run's warm-up WARMUP s, as bench_run --warmup gives it), each step with sysbench's
    summary and command line; warmup_time: the command's own --warmup-time, '' for none."""
    runs = write_sweep(make_server(name), name, "", RECENT_T0, BASELINE)
    for run in runs:
        Run.objects.filter(pk=run.pk).update(
            command=COMMAND.format(threads=run.concurrency, warmup=warmup_time),
            tool_summary=f"transactions: 9000 ({OWN[run.concurrency]:.2f} per sec.)")
    return runs


def test_sysbench_counting_its_warm_up_is_not_read_as_other_clients(admin_client):
    sysbench_sweep("whole", "")
    response = admin_client.get("/scalability/", {"sweep": "whole"})
    html = response.content.decode()
    assert "other clients:" not in html and "demo pause" not in html
    assert f"leaves out the first 0 s of its run, the run&#x27;s figures the first {WARMUP} s" in html
    # The server's TPS is read: by hand, the step to 4 gains (2500 - 2000) / 2 / 1000 = 25 % < 50 %: knee at 2.
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["knee: 2 threads"]
    assert not [t for t in fig["data"] if t["meta"] == "own"]


def test_sysbench_with_the_runs_warm_up_as_its_own_is_still_compared(admin_client):
    sysbench_sweep("same", f" --warmup-time={WARMUP}")
    html = admin_client.get("/scalability/", {"sweep": "same"}).content.decode()
    share = (by_hand(1000)[0] - OWN[1]) / by_hand(1000)[0]
    assert f"other clients: {share * 100:.1f} % of the transactions" in html


def test_the_run_report_says_no_other_clients_for_a_count_over_other_seconds(admin_client):
    (run, *_) = sysbench_sweep("report", "")
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    assert "other clients" not in body


def reports(rates: list[float]) -> str:
    """sysbench 1.0's --report-interval=5 lines, one rate per 5 s, then its summary."""
    lines = [f"[ {5 * (i + 1)}s ] thds: 1 tps: {r:.2f} qps: {20 * r:.2f} (r/w/o: 0/0/0) lat (ms,95%): 3.00 err/s: 0.00"
             for i, r in enumerate(rates)]
    return "\n".join([*lines, "SQL statistics:", "    transactions:                        9000  (300.00 per sec.)"])


def test_sysbench_under_bench_run_warmup_is_compared_over_its_reports_after_it(admin_client):
    """sysbench 1.0 under bench_run --warmup WARMUP, reporting every 5 s: its rate after the warm-up is read from
    the reports that began at or after it, so its own TPS is compared with the server's over the same seconds."""
    from workload.management.commands.bench_run import own_after_warmup

    ramp = [100.0] * (WARMUP // 5)  # the warm-up's reports, left out
    kept = [700.0, 900.0, 800.0, 800.0]
    # By hand: (700 + 900 + 800 + 800) * 5 s / 20 s = 800 TPS after the warm-up (the summary's whole run: 300).
    (run, *_) = sysbench_sweep("reports", "")
    own = own_after_warmup("sysbench", None, WARMUP, reports(ramp + kept), "transactions: 9000 (300.00 per sec.)")
    assert own["tps"] == 800.0 and own["transactions"] == 16000 and own["seconds"] == 20.0
    Run.objects.filter(pk=run.pk).update(client_figures=own)
    html = admin_client.get("/scalability/", {"sweep": "reports"}).content.decode()
    # The two other levels keep their summaries only: their note, twice each (the cell and its tooltip).
    assert html.count("leaves out the first 0 s of its run") == 4
    server = by_hand(1000)[0]
    assert f"other clients: {(server - 800) / server * 100:.1f} % of the transactions" in html
