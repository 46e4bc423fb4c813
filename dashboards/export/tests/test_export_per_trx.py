"""The per-transaction figures of the top-waits and compare pages in their CSVs, against sums done here by hand:
transactions = the tps deltas in the interval, waits and host CPU (node_exporter busy seconds) divided by them."""

import csv
import io
from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
POLLS = 121  # polls 1..120 carry deltas, every 10 s from START
START, MID, END = data.RECENT_T0, data.RECENT_T0 + timedelta(seconds=600), data.RECENT_T0 + timedelta(seconds=1200)
COND = "wait/synch/cond/sql/COND_thread_cache"  # a condition wait: idle threads, left out where the page leaves it
CLIENT = "wait/io/socket/sql/client_connection"  # client time: left out unless client=1


def busy(i: int) -> float:
    return 2.5 + 0.01 * i  # host CPU-seconds busy in poll i


def cond_ps(i: int) -> int:
    return 7 * 10**12 + i


def trx_sys_ps(i: int) -> int:
    return 4 * 10**12 + i * 10**9  # testing.dashboards.pfs_waits, scale 1


def all_waits_ps(i: int) -> int:
    return trx_sys_ps(i) + (10**12 + i * 10**8) + 3 * 10**11


def get_csv(http, url, **params) -> tuple[list[str], list[list[str]]]:
    response = http.get(url, params)  # not named client: the top-waits export takes a client= parameter
    assert response.status_code == 200, response.content
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    return rows[0], rows[1:]


@pytest.fixture
def db1(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", node_exporter_url="http://127.0.0.1:9100/metrics")
    cond = {f"wait.time_ps:{COND}", f"wait.count:{COND}"}
    waits = [Sample(s.server_id, s.source, s.ts, s.interval, {**s.values, f"wait.time_ps:{COND}": cond_ps(i),
                                                              f"wait.count:{COND}": 1}, s.counters | cond)
             for i, s in enumerate(data.pfs_waits(server.pk, START, POLLS), start=1)]
    host = [Sample(server.pk, "node_exporter", START + timedelta(seconds=10 * i), 10.0,
                   {"host.cpu.busy_seconds": busy(i)}, frozenset({"host.cpu.busy_seconds"})) for i in range(1, POLLS)]
    write_samples([*data.global_status(server.pk, START, POLLS), *waits, *host])
    return server


def test_the_top_waits_csv_has_transactions_and_waits_and_cpu_per_transaction(client, db1):
    header, rows = get_csv(client, "/export/topwaits.csv", server="db1", cond="0",
                           **{"from": iso_utc(START), "to": iso_utc(END)})
    polls = range(1, POLLS)
    trx = sum(data.tps_delta(i) for i in polls)
    col = header.index
    by_event = {r[1]: r for r in rows}
    assert COND not in by_event  # cond=0, as the page links it
    assert int(rows[0][col("transactions in interval")]) == trx
    assert float(by_event[data.TRX_SYS][col("time waited per transaction (ms)")]) == pytest.approx(
        sum(trx_sys_ps(i) for i in polls) / 1e9 / trx)
    wait_ms = sum(all_waits_ps(i) for i in polls) / 1e9 / trx
    assert float(rows[0][col("waits per transaction in interval (ms, all waits listed)")]) == pytest.approx(wait_ms)
    assert sum(float(r[col("time waited per transaction (ms)")]) for r in rows) == pytest.approx(wait_ms)
    cpu_ms = 1000 * sum(busy(i) for i in polls) / trx
    assert [float(r[col("host CPU per transaction in interval (ms)")]) for r in rows] == pytest.approx([cpu_ms] * 3)


def test_with_conditions_the_waits_per_transaction_count_them_too(client, db1):
    header, rows = get_csv(client, "/export/topwaits.csv", server="db1", cond="1",
                           **{"from": iso_utc(START), "to": iso_utc(END)})
    polls = range(1, POLLS)
    trx = sum(data.tps_delta(i) for i in polls)
    expected = sum(all_waits_ps(i) + cond_ps(i) for i in polls) / 1e9 / trx
    assert float(rows[0][header.index("waits per transaction in interval (ms, all waits listed)")]) == pytest.approx(
        expected)


def test_without_cond_or_client_the_csv_ranks_the_waits_as_the_page_does(client, db1):
    """A URL written from docs/export.md, without cond or client: the page's figures, not every event's."""
    other = data.make_server("db2")
    extra = {f"wait.time_ps:{COND}": 7 * 10**12, f"wait.count:{COND}": 1, f"wait.time_ps:{CLIENT}": 9 * 10**12,
             f"wait.count:{CLIENT}": 5}
    waits = [Sample(s.server_id, s.source, s.ts, s.interval, {**s.values, **extra}, s.counters | set(extra))
             for s in data.pfs_waits(other.pk, START, POLLS)]
    write_samples([*data.global_status(other.pk, START, POLLS), *waits])
    window = {"from": iso_utc(START), "to": iso_utc(END)}
    header, rows = get_csv(client, "/export/topwaits.csv", server="db2", **window)
    polls = range(1, POLLS)
    trx = sum(data.tps_delta(i) for i in polls)
    # Ranked without COND (7 s a poll, 840 s) and client time (9 s a poll, 1080 s), which would come first:
    # trx_sys 480 s + 7.26 s, log_sys 120 s + 0.726 s, data file 36 s; 643.986 s in all over the transactions.
    assert [r[1] for r in rows] == [data.TRX_SYS, data.LOG_SYS_MUTEX, data.DATA_IO]
    wait_ms = 643.986 * 1000 / trx
    assert float(rows[0][header.index("waits per transaction in interval (ms, all waits listed)")]) == pytest.approx(
        wait_ms)
    page = client.get(f"/servers/{other.pk}/waits/", window)
    assert page.context["per_trx"].wait_ms == pytest.approx(wait_ms)
    assert [r.event for r in page.context["rows"]] == [r[1] for r in rows]
    header, rows = get_csv(client, "/export/topwaits.csv", server="db2", cond="1", client="1", **window)
    assert [r[1] for r in rows] == [CLIENT, COND, data.TRX_SYS, data.LOG_SYS_MUTEX, data.DATA_IO]


def test_the_two_interval_csv_has_each_intervals_figures(client, db1):
    header, rows = get_csv(client, "/export/topwaits.csv", server=str(db1.pk), cond="0", **{
        "from": iso_utc(START), "to": iso_utc(MID), "from2": iso_utc(MID + timedelta(seconds=1)), "to2": iso_utc(END)})
    col = header.index
    row = next(r for r in rows if r[0] == data.TRX_SYS)
    for side, polls in (("A", range(1, 61)), ("B", range(61, POLLS))):  # ts START+600 is poll 60: A's last
        trx = sum(data.tps_delta(i) for i in polls)
        assert int(row[col(f"{side} transactions in interval")]) == trx
        assert float(row[col(f"{side} waits per transaction in interval (ms, all waits listed)")]) == pytest.approx(
            sum(all_waits_ps(i) for i in polls) / 1e9 / trx)
        assert float(row[col(f"{side} host CPU per transaction in interval (ms)")]) == pytest.approx(
            1000 * sum(busy(i) for i in polls) / trx)


def test_the_compare_csv_has_waits_and_cpu_per_transaction_of_each_run(client, db1):
    other = data.make_server("db2")  # no node_exporter: its CPU per transaction is unknown, not 0
    data.write_run_data(other.pk, START, POLLS, base=2500)
    first = Run.objects.create(name="baseline", server=db1, started_at=START, ended_at=END)
    second = Run.objects.create(name="half", server=other, started_at=START, ended_at=END)
    header, (a, b) = get_csv(client, "/export/compare.csv", runs=f"{first.pk},{second.pk}")
    col = header.index
    polls = range(1, POLLS)
    trx_a, trx_b = sum(data.tps_delta(i) for i in polls), sum(data.tps_delta(i, 2500) for i in polls)
    wait = "waits per transaction (ms, condition waits left out)"
    assert float(a[col(wait)]) == pytest.approx(sum(all_waits_ps(i) for i in polls) / 1e9 / trx_a)  # COND left out
    assert float(b[col(wait)]) == pytest.approx(sum(all_waits_ps(i) for i in polls) / 1e9 / trx_b)
    assert float(a[col("host CPU per transaction (ms)")]) == pytest.approx(1000 * sum(busy(i) for i in polls) / trx_a)
    assert b[col("host CPU per transaction (ms)")] == ""
