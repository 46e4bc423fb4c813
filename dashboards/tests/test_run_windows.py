"""A run's statistics cover the run and nothing else: intervals inside it, after its warm-up, every sample."""

import csv
import io
import statistics
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.reports.summary import summarize_run
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db
T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)


def tps_poll(server_id: int, at: int, interval: int, per_second: float, extra: dict | None = None) -> Sample:
    values = {"tps": round(per_second * interval), "qps": round(9 * per_second * interval)}
    return Sample(server_id, "global_status", T0 + timedelta(seconds=at), float(interval), values | (extra or {}),
                  frozenset(values))


def idle_then_load(server_id: int) -> None:
    """Polls every 10 s: idle (5 TPS) up to the poll at 20 s, then a flat 2,941.5 TPS; 0 s has no delta."""
    write_samples([Sample(server_id, "global_status", T0, None, {"Threads_running": 1})]
                  + [tps_poll(server_id, t, 10, 5.0 if t <= 20 else 2941.5) for t in range(10, 201, 10)])


def test_only_intervals_inside_the_run_count(client, admin_user):
    server = make_server()
    idle_then_load(server.pk)
    # Started at 19.9 s: the poll at 20 s measured (10, 20], almost all before the start (5 TPS).
    run = Run.objects.create(name="rw c4", server=server, started_at=T0 + timedelta(seconds=19.9),
                             ended_at=T0 + timedelta(seconds=200))
    s = summarize_run(run)
    # Inside the run: the intervals ending at 30 .. 200 s (18 of them), each 29,415 transactions.
    assert s.tps.points == 18 and s.tps.p5 == pytest.approx(2941.5) and s.tps.cv == pytest.approx(0)
    assert s.transactions == 18 * 29415 and s.qps == pytest.approx(9 * 2941.5)


def test_the_warm_up_is_left_out_and_shown(client, admin_user):
    server = make_server()
    write_samples([Sample(server.pk, "global_status", T0, None, {"Threads_running": 1})]
                  + [tps_poll(server.pk, t, 10, 500.0 if t <= 30 else 1000.0) for t in range(10, 201, 10)])
    run = Run.objects.create(name="warm", server=server, started_at=T0, ended_at=T0 + timedelta(seconds=200),
                             warmup_seconds=30)
    s = summarize_run(run)
    assert (s.tps.points, s.tps.mean, s.tps.p5, s.warmup) == (17, 1000.0, 1000.0, 30)
    assert summarize_run(run, warmup=0).tps.points == 20  # the compare's own trim wins
    client.force_login(admin_user)
    page = client.get(f"/runs/{run.pk}/report/").content.decode()
    assert "after a warm-up of 30 s" in page
    body = b"".join(client.get(f"/export/compare.csv?runs={run.pk}&warmup=0").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert float(rows[0]["p5 TPS (/s)"]) == pytest.approx(500 + 0.95 * 0)  # 3 of 20 samples at 500: p5 is 500
    assert rows[0]["warm-up trimmed (s)"] == "0"
    compare = client.get(f"/compare/?runs={run.pk}&warmup=30").content.decode()
    assert ">30 s</td>" in compare


def test_statistics_use_every_sample_not_the_chart_points(client, admin_user):
    server = make_server()
    rates = [1000 + (i * 37) % 101 for i in range(60_000)]  # a 1 s run of 60,000 polls, more than a chart holds
    write_samples([Sample(server.pk, "global_status", T0 - timedelta(hours=17), None, {"Threads_running": 1})]
                  + [Sample(server.pk, "global_status", T0 - timedelta(hours=17) + timedelta(seconds=i + 1), 1.0,
                            {"tps": r}, frozenset({"tps"})) for i, r in enumerate(rates)])
    run = Run.objects.create(name="long", server=server, started_at=T0 - timedelta(hours=17),
                             ended_at=T0 - timedelta(hours=17) + timedelta(seconds=60_000))
    s = summarize_run(run)
    assert s.tps.points == 60_000
    assert s.tps.cv == pytest.approx(statistics.pstdev(rates) / statistics.fmean(rates))
    assert s.tps.p5 == pytest.approx(statistics.quantiles(rates, n=20, method="inclusive")[0])


def test_two_intervals_of_different_lengths_compare_rates(client, admin_user):
    """A = 3 min at 0.5 s/s and 100 TPS; B = 1 min at 2.25 s/s and 150 TPS: totals x1.5, rates x4.5."""
    server = make_server()
    event = "wait/synch/mutex/innodb/trx_sys_mutex"
    samples = [Sample(server.pk, "pfs_waits", T0, None, {}), Sample(server.pk, "global_status", T0, None, {})]
    for t in range(10, 241, 10):
        waits = {f"wait.time_ps:{event}": (5 if t <= 180 else 22.5) * 10**12, f"wait.count:{event}": 100}
        samples.append(Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=t), 10.0, waits, frozenset(waits)))
        samples.append(tps_poll(server.pk, t, 10, 100 if t <= 180 else 150))
    write_samples(samples)
    client.force_login(admin_user)
    at = (T0.replace(tzinfo=None) + timedelta(seconds=s) for s in (0, 180, 180, 240))
    params = dict(zip(("from", "to", "from2", "to2"), (t.isoformat() for t in at), strict=True))
    body = client.get(f"/servers/{server.pk}/waits/", params).content.decode()
    table = body.split('class="waits-diff"')[1].split("</table>")[0]
    assert "waited per second" in table and "per transaction" in table
    cells = [c.split("</td>")[0] for c in table.split("<tbody>")[1].split('<td class="num')[1:]]
    assert cells[:7] == ['">500.00 ms/s', '">2.25 s/s', ' warn">1.75 s/s', '">×4.50', '">5.00 ms', '">15.00 ms',
                         '">×3.00'], cells


def test_a_short_zoom_is_a_rate_over_the_time_its_polls_measured(client, admin_user):
    """Polls every 5 s. A = a 3 s zoom holding the poll at 60 s, which measured (55, 60]: 2.5 s waited
    over 5 s is 0.5 s/s (not 2.5 / 3 = 0.83). B = (90, 120]: six polls of 4 s waited cover 30 s, 0.8 s/s."""
    server = make_server()
    event = "wait/synch/mutex/innodb/trx_sys_mutex"
    samples = [Sample(server.pk, "pfs_waits", T0, None, {}), Sample(server.pk, "global_status", T0, None, {})]
    for t in range(5, 121, 5):
        waits = {f"wait.time_ps:{event}": (2.5 if t <= 60 else 4) * 10**12, f"wait.count:{event}": 10}
        samples.append(Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=t), 5.0, waits, frozenset(waits)))
        samples.append(tps_poll(server.pk, t, 5, 100))
    write_samples(samples)
    client.force_login(admin_user)
    at = (T0.replace(tzinfo=None) + timedelta(seconds=s) for s in (58, 61, 90, 120))
    params = dict(zip(("from", "to", "from2", "to2"), (t.isoformat() for t in at), strict=True))
    body = client.get(f"/servers/{server.pk}/waits/", params).content.decode()
    assert "its polls cover 5 s, 500 transactions" in body  # one poll: 5 s at 100 TPS
    table = body.split('class="waits-diff"')[1].split("</table>")[0]
    cells = [c.split("</td>")[0] for c in table.split("<tbody>")[1].split('<td class="num')[1:]]
    # 0.5 s/s and 0.8 s/s; per transaction 2.5 s / 500 = 5 ms and 24 s / 3,000 = 8 ms.
    assert cells[:7] == ['">500.00 ms/s', '">800.00 ms/s', ' warn">300.00 ms/s', '">×1.60', '">5.00 ms', '">8.00 ms',
                         '">×1.60'], cells
    rows = list(csv.reader(io.StringIO(b"".join(
        client.get(f"/export/topwaits.csv?server={server.pk}&" + "&".join(f"{k}={v}" for k, v in params.items()))
        .streaming_content).decode())))
    header, first = rows[0], rows[1]
    a_rate = header.index("A waited (s per s)")
    assert float(first[a_rate]) == pytest.approx(0.5), (header, first)
    # A zoom between two polls measured nothing: the page says so rather than "3 s, 0 transactions".
    params["from"], params["to"] = (T0.replace(tzinfo=None) + timedelta(seconds=s) for s in (56, 59))
    body = client.get(f"/servers/{server.pk}/waits/", params).content.decode()
    assert "no poll in it: widen it" in body and "its polls cover 30 s, 3,000 transactions" in body


def test_a_runs_waits_and_costs_per_transaction_leave_out_the_poll_before_it(client, admin_user):
    """The poll at 20 s measured (10, 20], before a run that starts at 19.9 s: its 50 transactions and its
    100 s waited are not the run's. Inside: 18 polls of 29,415 transactions and 1 s waited each."""
    server = make_server()
    idle_then_load(server.pk)
    event = "wait/synch/mutex/innodb/trx_sys_mutex"
    waits = [Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=t), 10.0,
                    {f"wait.time_ps:{event}": (100 if t == 20 else 1) * 10**12, f"wait.count:{event}": 10},
                    frozenset({f"wait.time_ps:{event}", f"wait.count:{event}"}))
             for t in range(10, 201, 10)]
    write_samples([Sample(server.pk, "pfs_waits", T0, None, {})] + waits)
    run = Run.objects.create(name="rw c4", server=server, started_at=T0 + timedelta(seconds=19.9),
                             ended_at=T0 + timedelta(seconds=200))
    transactions, waited_ms = 18 * 29415, 18 * 1000.0
    client.force_login(admin_user)
    page = client.get(f"/compare/?runs={run.pk}").content.decode()
    cells = page.split('class="compare-summary"')[1].split("<tbody>")[1]
    assert f">{transactions:,}</td>" in cells and f">{waited_ms / transactions:.3f} ms</td>" in cells, cells
    assert "trx_sys_mutex</span> 18.00 s (" in cells  # its top wait: 18 x 1 s, not 118 s
    rows = list(csv.DictReader(io.StringIO(b"".join(
        client.get(f"/export/compare.csv?runs={run.pk}").streaming_content).decode())))
    assert float(rows[0]["transactions"]) == transactions
    assert float(rows[0]["waits per transaction (ms, condition waits left out)"]) == pytest.approx(
        waited_ms / transactions)


@pytest.mark.parametrize("offset", [3.7, 1.2])
def test_the_reports_series_csv_holds_exactly_the_polls_of_its_figures(client, admin_user, offset):
    """Polls every 5 s read 3.7 s past the 5 s marks, so each sits on the row of the next mark (or 1.2 s past,
    on the row of the mark before). The run starts at 4.5 s (its warm-up of 4 s from 0.5 s) and ends at
    74 s: inside are the polls read at 13.7 .. 73.7 s (the one at 8.7 s measured from 3.7 s, before the
    start). Their rows are 15 .. 75 s: the row of the poll at 8.7 s (10 s) lies after the start, the last
    one (75 s) after the end. The CSV must hold the 13 inside polls and no other, so its rates give the
    report's mean, p5, p95 and CV."""
    server = make_server(poll_interval=5)
    rates = {i: 1000.0 + (i * 7919) % 600 for i in range(20)}
    at = T0 + timedelta(seconds=offset)
    counted = {i: {"tps": rates[i] * 5, "qps": rates[i] * 45} for i in range(1, 20)}
    write_samples([Sample(server.pk, "global_status", at, None, {"Threads_running": 1})]
                  + [Sample(server.pk, "global_status", at + timedelta(seconds=5 * i), 5.0,
                            counted[i] | {"Threads_running": 4}, frozenset(counted[i])) for i in range(1, 20)]
                  + [Sample(server.pk, "history_length", at + timedelta(seconds=5 * i), None,
                            {"history_list_length": 100}) for i in range(20)])
    run = Run.objects.create(name="rows", server=server, started_at=T0 + timedelta(seconds=0.5),
                             ended_at=T0 + timedelta(seconds=74), warmup_seconds=4)
    client.force_login(admin_user)
    context = client.get(f"/runs/{run.pk}/report/").context
    summary, inside = context["summary"], [rates[i] for i in range(2, 15)]
    assert summary.tps.points == 13 and summary.tps.mean == pytest.approx(statistics.fmean(inside))
    for link in (context["series_csv"], context["series_full_csv"]):
        response = client.get(link)
        assert response.status_code == 200, (link, response.content)
        rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
        column = rows[0].index(f"{server.name} tps (/s)")
        tps = [float(row[column]) for row in rows[1:] if row[column]]
        assert tps == pytest.approx(inside), link
        assert statistics.fmean(tps) == pytest.approx(summary.tps.mean)
        assert statistics.pstdev(tps) / statistics.fmean(tps) == pytest.approx(summary.tps.cv)
        p5, *_, p95 = statistics.quantiles(tps, n=20, method="inclusive")
        assert (p5, p95) == (pytest.approx(summary.tps.p5), pytest.approx(summary.tps.p95))


def test_a_run_marked_to_start_ahead_shows_its_own_start_not_now(client, admin_user):
    """Seen: a run a script marked for 2026-12-24 23:00 (a clock ahead) read "from <now>" in the comparison
    and "<now> – now (still running)" on its report: a start it never had."""
    client.force_login(admin_user)
    server = make_server("ahead")
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=30)
    run = Run.objects.create(name="tomorrow's", server=server, started_at=start)
    rows = list(csv.DictReader(io.StringIO(b"".join(
        client.get("/export/compare.csv", {"runs": run.pk}).streaming_content).decode())))
    assert (rows[0]["from (UTC, after the warm-up)"], rows[0]["duration (s)"]) == (
        start.strftime("%Y-%m-%dT%H:%M:%SZ"), "0")
    body = client.get(f"/runs/{run.pk}/report/").content.decode()
    assert f"{start:%Y-%m-%d %H:%M:%S} – not started yet UTC" in body


def test_a_run_whose_end_is_marked_ahead_has_lasted_until_now(client, admin_user):
    """Audit 4: a run started 10 minutes ago whose script marked its end an hour ahead read 4,200 s long in the
    comparison, as if the hour to come had passed; a run still going (no end) read 600 s. Both last until now."""
    client.force_login(admin_user)
    server = make_server("ahead")
    now = datetime.now(UTC).replace(microsecond=0)
    marked = Run.objects.create(name="marked", server=server, started_at=now - timedelta(minutes=10),
                                ended_at=now + timedelta(hours=1))
    going = Run.objects.create(name="going", server=server, started_at=now - timedelta(minutes=10))
    rows = list(csv.DictReader(io.StringIO(b"".join(
        client.get("/export/compare.csv", {"runs": f"{marked.pk},{going.pk}"}).streaming_content).decode())))
    for row in rows:  # 600 s, and the seconds this test has taken
        assert 600 <= float(row["duration (s)"]) <= 660
