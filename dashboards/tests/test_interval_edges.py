"""Figures at a range's edges, checked against what an engineer computes by hand from known polls.

A counter's poll exactly at an interval's start measured the time before it, so it is not the
interval's; a condition that held at a range's start may have begun before the range.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards import purge_reads
from dashboards.analysis.purge_growth import Since, run_since
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

STEP = 10  # seconds between polls
EVENT = "wait/io/file/innodb/innodb_data_file"
PS = 10**12  # picoseconds in a second


def counters_poll(server_id: int, ts, tps: int, waited_s: int, busy_s: float) -> list[Sample]:
    """One poll's deltas: transactions, one wait event's time, and host CPU busy seconds."""
    status = {"tps": tps}
    waits = {f"wait.time_ps:{EVENT}": waited_s * PS, f"wait.count:{EVENT}": 10}
    host = {"host.cpu.busy_seconds": busy_s}
    return [Sample(server_id, "global_status", ts, float(STEP), status, frozenset(status)),
            Sample(server_id, "pfs_waits", ts, float(STEP), waits, frozenset(waits)),
            Sample(server_id, "node_exporter", ts, float(STEP), host, frozenset(host))]


@pytest.fixture
def waits_at_edge():
    """The poll at T: 1000 transactions, 5 s waited, 9 s of CPU; the 60 after it: 100, 1 s and 2 s each."""
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    t = timezone.now().replace(microsecond=0) - timedelta(minutes=20)
    samples = counters_poll(server.pk, t, 1000, 5, 9.0)
    for k in range(1, 61):
        samples += counters_poll(server.pk, t + timedelta(seconds=STEP * k), 100, 1, 2.0)
    write_samples(samples)
    return server, t


def at(t) -> str:
    return f"{t:%Y-%m-%dT%H:%M:%S}"


def test_it_leaves_the_poll_at_from_out_of_the_transactions_and_per_transaction_figures(admin_client, waits_at_edge):
    server, t = waits_at_edge
    five, ten = t + timedelta(minutes=5), t + timedelta(minutes=10)
    url = f"/servers/{server.pk}/waits/?from={at(t)}&to={at(ten)}&from2={at(five)}&to2={at(ten)}"
    response = admin_client.get(url)
    a, b = response.context["per_trx"], response.context["per_trx_b"]
    # A: the 60 polls after T: 60 x 100 = 6,000 transactions, 60 s waited = 60,000 ms, CPU 60 x 2 s = 120 s.
    assert a.transactions == 6000
    assert a.wait_ms == pytest.approx(10.0)  # 60,000 ms / 6,000
    assert a.cpu_ms == pytest.approx(20.0)  # 120,000 ms / 6,000
    # B: the 30 polls after T+5 min (T+310 s .. T+600 s): 3,000 transactions, 30 s waited, 60 s of CPU.
    assert b.transactions == 3000
    assert b.wait_ms == pytest.approx(10.0)
    assert b.cpu_ms == pytest.approx(20.0)
    # The figures agree with the page's own note on what the intervals' polls hold.
    spans = response.context["spans"]
    assert (spans[0].seconds, spans[0].transactions) == (600, 6000)
    assert (spans[1].seconds, spans[1].transactions) == (300, 3000)
    table = response.content.decode().split('class="per-trx-diff"')[1].split("</table>")[0]
    row_a, row_b = table.split("<th>A</th>")[1].split("</tr>")[0], table.split("<th>B</th>")[1].split("</tr>")[0]
    assert "6,000" in row_a and "10.000 ms" in row_a and "20.000 ms" in row_a
    assert "3,000" in row_b and "10.000 ms" in row_b and "20.000 ms" in row_b


def test_it_leaves_the_poll_at_from_out_of_a_single_intervals_figures(admin_client, waits_at_edge):
    server, t = waits_at_edge
    pt = admin_client.get(f"/servers/{server.pk}/waits/?from={at(t)}&to={at(t + timedelta(minutes=10))}"
                          ).context["per_trx"]
    assert (pt.transactions, pt.wait_ms, pt.cpu_ms) == (6000, pytest.approx(10.0), pytest.approx(20.0))


def test_it_counts_the_waits_it_shows_in_each_interval(admin_client, waits_at_edge):
    server, t = waits_at_edge
    five, ten = t + timedelta(minutes=5), t + timedelta(minutes=10)
    response = admin_client.get(f"/servers/{server.pk}/waits/?from={at(t)}&to={at(ten)}&from2={at(five)}&to2={at(ten)}")
    # A: the 60 polls after T, 10 waits and 1 s each; B: the 30 polls after T+5 min.
    (row,) = response.context["rows"]
    assert (row.event, row.count, row.time_ps) == (EVENT, 600, 60 * PS)
    (diff,) = response.context["diffs"]
    assert (diff.a.count, diff.a.time_ps, diff.b.count, diff.b.time_ps) == (600, 60 * PS, 300, 30 * PS)
    assert diff.a.avg_ps == diff.b.avg_ps == PS / 10
    assert "100.00 ms" in response.content.decode().split('class="event"')[1]  # the table's avg: 1 s / 10


HOUR_POLLS = 3600 // STEP


def history_polls(server_id: int, end, first_hour: float, last_hour: float) -> None:
    """Two hours of history list length every 10 s up to `end`: one value the first hour, another the last."""
    n = 2 * HOUR_POLLS
    write_samples(Sample(server_id, "history_length", end - timedelta(seconds=STEP * (n - 1 - i)), None,
                         {"history_list_length": first_hour if i < HOUR_POLLS else last_hour + i})
                  for i in range(n))


@pytest.fixture
def now():
    return timezone.now().replace(microsecond=0) - timedelta(seconds=2)


@pytest.mark.parametrize("query", ["range=15m", "range=1h", "range=6h"])
def test_it_says_when_the_run_began_though_it_began_before_the_range(admin_client, now, query):
    server = make_server()
    history_polls(server.pk, now, 40_000, 50_000)
    # Polls at now - 7190 s .. now; the last hour's 360 polls read >= 50,000, the first of them at now - 3590 s.
    began = now - timedelta(seconds=3590)
    response = admin_client.get(f"/servers/{server.pk}/purge/?{query}&threshold=50000")
    assert response.context["above_since"] == Since(began, at_least=False)
    body = response.content.decode()
    assert f"above it since {began:%Y-%m-%d %H:%M:%S} UTC" in body and "above it since at least" not in body


def test_it_says_at_least_when_no_poll_before_the_run_is_below(admin_client, now):
    server = make_server()
    history_polls(server.pk, now, 60_000, 70_000)  # above 50,000 at every poll ever written
    first = now - timedelta(seconds=7190)
    response = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=50000")
    assert response.context["above_since"] == Since(first, at_least=True)
    assert f"above it since at least {first:%Y-%m-%d %H:%M:%S} UTC" in response.content.decode()


class NoRetentionLookup:
    """Stands in for store.levels in the purge view: reading past the range's start would fail."""

    FULL = "full"

    @staticmethod
    def available_since(level, now=None):
        raise AssertionError("looked before the range though the run began inside it")


def test_it_reads_nothing_before_the_range_when_the_run_began_inside_it(admin_client, now, monkeypatch):
    server = make_server()
    history_polls(server.pk, now, 40_000, 50_000)
    monkeypatch.setattr(purge_reads, "levels", NoRetentionLookup)
    response = admin_client.get(f"/servers/{server.pk}/purge/?range=6h&threshold=50000")
    assert response.context["above_since"] == Since(now - timedelta(seconds=3590), at_least=False)


def test_run_since_says_whether_a_reading_below_closed_the_run():
    t = [timezone.now() - timedelta(seconds=s) for s in (0, 10, 20, 30)]  # newest first
    assert run_since(zip(t, [5, 6, None, 7], strict=True), 5) == Since(t[3], at_least=True)
    assert run_since(zip(t, [5, 6, 4, 7], strict=True), 5) == Since(t[1], at_least=False)
    assert run_since(zip(t, [4, 6, 6, 6], strict=True), 5) is None
    assert run_since([], 5) is None
