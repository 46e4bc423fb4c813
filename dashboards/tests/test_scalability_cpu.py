"""CPU per transaction on the Scalability page, its report and CSV: node_exporter's busy seconds inside each
step's window (the warm-up poll left out) over the transactions inside it, computed here by hand."""

import csv
import io

import pytest

from testing.dashboards import RECENT_T0, figures, make_server
from testing.scalability import BASELINE, POLL, STEP, WARMUP_BUSY, busy_seconds, inside_rates, page, write_sweep

pytestmark = pytest.mark.django_db


def cpu_ms_by_hand(c: int, base: float) -> float:
    """Polls 2..6 lie inside the step's window: their busy seconds / their transactions, in ms."""
    inside = range(2, STEP // POLL + 1)
    transactions = sum(round(r * POLL) for r in inside_rates(base))
    return 1000 * sum(busy_seconds(c, j) for j in inside) / transactions


@pytest.fixture
def host_sweep():
    return write_sweep(make_server("lab1"), "baseline", "", RECENT_T0, BASELINE, host=True)


def test_cpu_per_transaction_is_drawn_per_level_from_inside_each_window(client, admin_user, host_sweep):
    fig = figures(page(client, admin_user, sweep="baseline"))["chart-scalability-cpu"]
    (line,) = fig["data"]
    expected = [cpu_ms_by_hand(c, base) for c, base in BASELINE.items()]
    assert line["x"] == [1, 2, 4] and line["y"] == pytest.approx(expected)
    assert max(line["y"]) < 1000 * WARMUP_BUSY / max(BASELINE.values()) / POLL  # the warm-up poll is never counted
    assert fig["layout"]["yaxis"]["title"]["text"] == "host CPU ms per transaction"


def test_the_table_the_csv_and_the_report_carry_it(client, admin_user, host_sweep):
    expected = [cpu_ms_by_hand(c, base) for c, base in BASELINE.items()]
    html = page(client, admin_user, sweep="baseline").content.decode()
    assert "CPU per trx (ms)" in html and all(f"{v:.3f}" in html for v in expected)
    response = client.get("/export/scalability.csv", {"sweep": "baseline"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [float(r["host CPU per transaction (ms)"]) for r in rows] == pytest.approx(expected)
    report = client.get("/reports/scalability/", {"sweep": "baseline"})
    assert "chart-scalability-cpu" in figures(report) and "Host CPU per transaction" in report.content.decode()


def test_without_host_data_there_is_no_cpu_chart_and_the_page_says_why(client, admin_user):
    write_sweep(make_server("lab2"), "plain", "", RECENT_T0, BASELINE)
    response = page(client, admin_user, sweep="plain")
    assert "chart-scalability-cpu" not in figures(response)
    assert "none of these runs' servers has node_exporter data" in response.content.decode()
    response = client.get("/export/scalability.csv", {"sweep": "plain"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["host CPU per transaction (ms)"] for r in rows] == ["", "", ""]
