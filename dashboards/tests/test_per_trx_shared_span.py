"""Waits and host CPU per transaction over the seconds both sources cover, as an engineer computes them by hand:
the wait (or CPU) deltas of the polls both the wait summary (node_exporter) and TPS have, over the TPS deltas of
those same polls. Written through the store: TPS every 10 s from the start, the wait summary starting 20 polls
later (or missing a stretch), node_exporter 30 polls later, each source read a few milliseconds after TPS."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
POLLS = range(1, 121)  # poll i read at T0 + 10 i s: TPS's delta covers (T0 + 10 (i - 1), T0 + 10 i]
END = T0 + timedelta(seconds=1205)  # the last polls (TPS at +1200 s, the others a few ms after) inside
EV1, EV2 = data.TRX_SYS, data.DATA_IO


def at(i: int, ms: int = 0):
    return T0 + timedelta(seconds=10 * i, milliseconds=ms)


def ev1_ps(i: int) -> int:
    return 125 * 10**10 + i * 10**9  # 1.25 s + i ms waited in poll i


EV2_PS = 3 * 10**11  # 0.3 s in every poll


def write(server, tps: dict[int, int], waits: list[int], busy: tuple[int, ...] = ()) -> None:
    samples = [Sample(server.pk, "global_status", at(i), 10.0, {"tps": t}, frozenset({"tps"})) for i, t in tps.items()]
    for i in waits:
        values = {f"wait.time_ps:{EV1}": ev1_ps(i), f"wait.count:{EV1}": 100, f"wait.time_ps:{EV2}": EV2_PS,
                  f"wait.count:{EV2}": 10}
        samples.append(Sample(server.pk, "pfs_waits", at(i, 3), 10.0, values, frozenset(values)))
    samples += [Sample(server.pk, "node_exporter", at(i, 40), 10.0, {"host.cpu.busy_seconds": 2.0},
                       frozenset({"host.cpu.busy_seconds"})) for i in busy]
    write_samples(samples)


@pytest.fixture
def late(admin_user, client):
    """TPS 1300 a poll in the 20 polls before the wait summary's first delta (poll 21), 1000 after; node_exporter
    from poll 31 on."""
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10, node_exporter_url="http://127.0.0.1:9100/metrics")
    write(server, {i: 1300 if i <= 20 else 1000 for i in POLLS}, list(range(21, 121)), tuple(range(31, 121)))
    return server


def waits_page(client, server, start, end, **more):
    response = client.get(f"/servers/{server.pk}/waits/", {"from": iso_utc(start), "to": iso_utc(end), **more})
    assert response.status_code == 200
    return response


def test_a_wait_summary_starting_later_counts_only_the_transactions_of_its_polls(client, late):
    page = waits_page(client, late, T0, END)
    per_trx = page.context["per_trx"]
    # Polls 21..120 both: waits 100 x 1.25 s + (21 + ... + 120) ms = 125 s + 7.05 s; transactions 100 x 1000.
    # Before: (162.05 s / 1000 s) / (126,000 / 1200 s) read 1.5433 ms.
    assert per_trx.wait_ms == pytest.approx((132.05 + 30.0) * 1000 / 100_000, rel=1e-5)  # 1.6205 ms with EV2's 30 s
    assert per_trx.transactions == 126_000  # the interval's own, every TPS poll in it
    assert per_trx.wait_over == timedelta(seconds=1000)
    assert "over the 16 min 40 s both sources cover" in page.content.decode()
    # node_exporter from poll 31: 90 x 2.0 CPU-s over 90 x 1000 transactions = 2.0 ms (before: 1.905).
    assert per_trx.cpu_ms == pytest.approx(2.0, rel=1e-5)
    assert per_trx.cpu_over == timedelta(seconds=900)


def test_where_both_cover_the_same_seconds_no_span_is_said(client, late):
    page = waits_page(client, late, at(30, 500), END)  # polls 31..120 of every source
    per_trx = page.context["per_trx"]
    waited = sum(ev1_ps(i) + EV2_PS for i in range(31, 121))
    assert per_trx.wait_ms == pytest.approx(waited / 1e9 / 90_000, rel=1e-5)
    assert per_trx.wait_over is None and per_trx.cpu_over is None
    assert "both sources cover" not in page.content.decode()


def test_the_second_intervals_waits_per_transaction_are_over_the_shared_polls_too(client, late):
    page = waits_page(client, late, T0, at(60, 500), from2=iso_utc(at(60, 500)), to2=iso_utc(END))
    diff = next(d for d in page.context["diffs"] if d.event == EV1)
    # A: polls 21..60 both cover (the wait summary's 40); B: polls 61..120.
    assert diff.a_per_trx == pytest.approx(sum(ev1_ps(i) for i in range(21, 61)) / 40_000, rel=1e-5)
    assert diff.b_per_trx == pytest.approx(sum(ev1_ps(i) for i in range(61, 121)) / 60_000, rel=1e-5)
    assert page.context["per_trx"].wait_over == timedelta(seconds=400)
    assert page.context["per_trx_b"].wait_over is None
    # Seconds waited per second over the wait summary's own 400 s in A (before: over TPS's 600 s).
    assert diff.a_rate == pytest.approx(sum(ev1_ps(i) for i in range(21, 61)) / 400, rel=1e-5)
    assert diff.b_rate == pytest.approx(sum(ev1_ps(i) for i in range(61, 121)) / 600, rel=1e-5)
    html = page.content.decode()
    assert "the wait summary's 400 s, what its rates are over" in html, html[html.find("A: "):][:600]


def test_a_wait_summary_missing_a_stretch_leaves_that_stretchs_transactions_out(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    # Polls 41..61 busier (1600 a poll), and the wait summary has no delta there (reset when it came back).
    write(server, {i: 1600 if 41 <= i <= 61 else 1000 for i in POLLS}, [i for i in POLLS if not 41 <= i <= 61])
    rows = data.get_csv(client, "/export/topwaits.csv", server="db1", **{"from": iso_utc(T0), "to": iso_utc(END)})
    header, by_event = rows[0], {r[1]: r for r in rows[1:]}
    col = header.index
    shared = [i for i in POLLS if not 41 <= i <= 61]  # 99 polls, 99,000 transactions
    ev1 = sum(ev1_ps(i) for i in shared) / 1e9 / 99_000  # (123.75 s + (7260 - 1071) ms) / 99,000 = 1.3125 ms
    assert ev1 == pytest.approx(1.31252, rel=1e-5)
    assert float(by_event[EV1][col("time waited per transaction (ms)")]) == pytest.approx(ev1, rel=1e-5)
    assert float(by_event[EV2][col("time waited per transaction (ms)")]) == pytest.approx(0.3, rel=1e-5)
    # Before: (159.639 s / 990 s) / (132,600 / 1200 s) read 1.4593 ms; the column EV1's 129.939 s / 132,600 = 0.9799.
    assert float(by_event[EV1][col("waits per transaction in interval (ms, all waits listed)")]) == pytest.approx(
        ev1 + 0.3, rel=1e-5)
    assert float(by_event[EV1][col("seconds both sources cover (waits per transaction)")]) == 990


def test_a_runs_waits_per_transaction_are_over_the_polls_both_cover(client, late):
    run = Run.objects.create(server=late, name="r", started_at=T0, ended_at=END, warmup_seconds=100)
    rows = data.get_csv(client, "/export/compare.csv", runs=str(run.pk))
    header, row = rows[0], rows[1]
    # Inside the run after its warm-up: TPS polls 11..120, the wait summary's 21..120, node_exporter's 31..120.
    # Before: (162.05 s / 1000 s) / (113,000 / 1100 s) read 1.5775 ms.
    waits = float(row[header.index("waits per transaction (ms, condition waits left out)")])
    assert waits == pytest.approx(162.05 * 1000 / 100_000, rel=1e-5)
    assert float(row[header.index("host CPU per transaction (ms)")]) == pytest.approx(2.0, rel=1e-5)
    page = client.get("/compare/", {"runs": str(run.pk)})
    assert "over the 16 min 40 s both sources cover" in page.content.decode()


def test_a_wait_poll_spanning_a_failed_stretch_into_the_interval_says_its_seconds(admin_user, client):
    """Seen live: SELECT on performance_schema revoked for two minutes, then granted again; the wait summary's
    first poll after carries a delta since its last poll before, so it began before the interval. TPS's polls
    before the interval cover it: the figure is over more seconds than the interval's transactions cover."""
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    write(server, {i: 1600 if 41 <= i <= 53 else 1000 for i in POLLS}, [i for i in POLLS if not 41 <= i <= 53])
    back = {f"wait.time_ps:{EV1}": 13 * 125 * 10**10, f"wait.count:{EV1}": 1300,
            f"wait.time_ps:{EV2}": 13 * EV2_PS, f"wait.count:{EV2}": 130}
    write_samples([Sample(server.pk, "pfs_waits", at(53, 3), 130.0, back, frozenset(back))])  # (at(40), at(53)]
    page = waits_page(client, server, at(45, 500), END)
    per_trx = page.context["per_trx"]
    # The interval's TPS polls 46..120: 8 x 1600 + 67 x 1000 = 79,800 transactions over 750 s.
    assert per_trx.transactions == 79_800
    # The wait polls read in it: 53 (130 s) and 54..120 (670 s), 800 s; TPS's polls 41..120 cover them:
    # 13 x 1600 + 67 x 1000 = 87,800 transactions. Waits: 13 x 1.55 s = 20.15 s in poll 53, and
    # 67 x 1.55 s + (54 + ... + 120) ms = 103.85 s + 5.829 s after: 129.829 s / 87,800 = 1.47869 ms.
    assert per_trx.wait_ms == pytest.approx(129.829 * 1000 / 87_800, rel=1e-5)
    # The transactions shown (79,800) are not what it is over (129.829 s / 79,800 would read 1.6269 ms): say so.
    assert per_trx.wait_over == timedelta(seconds=800)
    assert "over the 13 min 20 s both sources cover" in page.content.decode()


def test_one_wait_poll_missing_says_its_span_and_the_transactions_divided_by(admin_user, client):
    """The wait summary stored nothing for one poll (poll 50, busier): the page says the seconds its figure is
    over, and the CSV gives the transactions it divides by beside the interval's."""
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    write(server, {i: 1600 if i == 50 else 1000 for i in POLLS}, [i for i in POLLS if i != 50])
    waited = sum(ev1_ps(i) + EV2_PS for i in POLLS if i != 50) / 1e9  # ms, over 119 polls' ~119,000 transactions
    page = waits_page(client, server, T0, END)
    assert page.context["per_trx"].transactions == 120_600  # 119 x 1000 + 1600: the interval's, as shown
    assert page.context["per_trx"].wait_ms == pytest.approx(waited / 119_000.18, rel=1e-9)
    assert "over the 19 min 50 s both sources cover" in page.content.decode()
    rows = data.get_csv(client, "/export/topwaits.csv", server="db1", **{"from": iso_utc(T0), "to": iso_utc(END)})
    header, row = rows[0], rows[1]
    assert header[:7] == ["rank", "event", "time waited (s)", "share of time waited (%)", "count",
                          "avg wait (us)", "time waited (ps)"]
    assert header.index("transactions in interval") == 8  # the appended columns move none before them
    assert int(row[header.index("transactions in interval")]) == 120_600
    # Each wait poll i covers (10 (i-1) s + 3 ms, 10 i s + 3 ms]: the last 3 ms at TPS poll i + 1's rate, so poll
    # 49 takes 3 ms of poll 50's 160 /s: 119 x 1000 + 0.003 x (160 - 100) = 119,000.18.
    assert float(row[header.index("transactions both sources cover (waits per transaction)")]) == pytest.approx(
        119_000.18, rel=1e-9)
    assert float(row[header.index("seconds both sources cover (waits per transaction)")]) == 1190
    assert row[header.index("transactions both sources cover (host CPU per transaction)")] == ""  # no node_exporter
