"""Waits and host CPU per transaction past the raw retention, where the wait summary (or node_exporter) and TPS
cover different spans: the figure is what an engineer computes by hand from the 1-minute rollup rows, the buckets
of the range (each stamped at its end, as a poll) that TPS's buckets cover.

Written through the store's ingest 20 days back, compacted into rollups and the polls expired by its retention.
TPS every 10 s; every poll of the wait summary waits 5 ms per transaction of TPS's same poll (4 + 1 ms over two
events) and node_exporter's burns 2 ms of CPU per transaction, whatever TPS does: any set of buckets that both
cover gives 5.000 and 2.000 ms, a set of waits taken over other buckets than the transactions does not."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.step_window import Window
from dashboards.export.csv_safe import iso_utc
from dashboards.per_trx_reads import run_figures
from servers.models import Run
from store import compaction, retention
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
T0 = NOW - timedelta(days=20)  # past the 14 days of polls, within the 90 days of 1-minute rollups
EV1, EV2 = data.TRX_SYS, data.DATA_IO
POLLS = range(1, 181)  # poll i read at T0 + 10 i s (its minute bucket: i // 6), 30 minutes
END = T0 + timedelta(minutes=30, seconds=30)


def at(i: int, ms: int = 0) -> datetime:
    return T0 + timedelta(seconds=10 * i, milliseconds=ms)


def trx(i: int) -> int:
    return 1000 + 100 * (i // 6)  # busier each minute: waits over other minutes' transactions read off 5 ms


def write(server, tps: list[int], waits: list[int], busy: tuple[int, ...] = ()) -> None:
    samples = [Sample(server.pk, "global_status", at(i), 10.0, {"tps": trx(i)}, frozenset({"tps"})) for i in tps]
    for i in waits:
        values = {f"wait.time_ps:{EV1}": 4 * 10**9 * trx(i), f"wait.count:{EV1}": 100,
                  f"wait.time_ps:{EV2}": 10**9 * trx(i), f"wait.count:{EV2}": 10}
        samples.append(Sample(server.pk, "pfs_waits", at(i, 3), 10.0, values, frozenset(values)))
    samples += [Sample(server.pk, "node_exporter", at(i, 40), 10.0, {"host.cpu.busy_seconds": 0.002 * trx(i)},
                       frozenset({"host.cpu.busy_seconds"})) for i in busy]
    write_samples(samples)
    compaction.compact_closed(NOW)
    retention.apply(NOW)


def waits_page(client, server, start, end):
    response = client.get(f"/servers/{server.pk}/waits/", {"from": iso_utc(start), "to": iso_utc(end)})
    assert response.status_code == 200
    per_trx = response.context["per_trx"]
    assert f"{per_trx.wait_ms:.3f} ms" in response.content.decode()  # as the page says it
    return per_trx


@pytest.fixture
def stopped(admin_user, client):
    """TPS for 30 minutes; the wait summary stopped after 15 (its last poll 89, minute 14's last), node_exporter
    started at minute 10 (poll 60)."""
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10, node_exporter_url="http://127.0.0.1:9100/metrics")
    write(server, list(POLLS), list(range(1, 90)), tuple(range(60, 181)))
    return server


def test_a_wait_summary_stopped_midway_reads_its_buckets_over_their_transactions(client, stopped):
    # From 30 s into minute 0 (a partial bucket, TPS's polls 3..5 in the range) to past minute 29.
    per_trx = waits_page(client, stopped, T0 + timedelta(seconds=30), END)
    # The buckets wholly inside: minutes 1..29 (minute 0 began before the range, minute 30 ends after it). The
    # wait summary's: minutes 1..14, 840 s, 6 x (1100 + ... + 2400) = 147,000 transactions, 735 s waited.
    # Before: the waits over minutes 1..14, the transactions over minutes 0..14 (890 s, 152,000): 4.836 ms.
    assert per_trx.wait_ms == pytest.approx(735.0 * 1000 / 147_000, rel=1e-9)
    assert per_trx.wait_seconds == 840
    assert per_trx.cpu_ms == pytest.approx(2.0, rel=1e-9)


def test_a_wait_summary_stopped_midway_on_whole_minutes(client, stopped):
    per_trx = waits_page(client, stopped, T0, END)
    assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)
    assert per_trx.cpu_ms == pytest.approx(2.0, rel=1e-9)


@pytest.fixture
def tps_gap(admin_user, client):
    """The wait summary for 30 minutes; TPS missing minutes 10 and 11 (polls 60..71: a status counter reset)."""
    client.force_login(admin_user)
    server = data.make_server("db2", poll_interval=10)
    write(server, [i for i in POLLS if not 60 <= i <= 71], list(POLLS))
    return server


def test_a_gap_in_tps_leaves_those_buckets_out_of_the_waits_too(client, tps_gap):
    per_trx = waits_page(client, tps_gap, T0, END)
    # Minutes 1..9 and 12..29 both cover (27 buckets, 1620 s; minute 0 began at the range's start, outside it).
    # Before: the transactions took minute 0 in (5,000 more) and each stretch lost its first bucket of waits
    # (minutes 0 and 12, 91 s): 1986 s / 415,400 = 4.781 ms.
    assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)
    assert per_trx.wait_seconds == 27 * 60


def test_a_runs_waits_per_transaction_on_rollups_are_over_the_buckets_both_cover(client, stopped, tps_gap):
    # The gap's run read 4.747 ms before (a stretch's first bucket of waits left out); the compare page too.
    for server in (stopped, tps_gap):
        run = Run.objects.create(server=server, name="r", started_at=T0, ended_at=END, warmup_seconds=60)
        per_trx = run_figures(server.pk, Window(T0 + timedelta(seconds=60), END))[1]
        assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)
        rows = data.get_csv(client, "/export/compare.csv", runs=str(run.pk))
        header, row = rows[0], rows[1]
        waits = float(row[header.index("waits per transaction (ms, condition waits left out)")])
        assert waits == pytest.approx(5.0, rel=1e-4)
        page = client.get("/compare/", {"runs": str(run.pk)}).content.decode()
        assert '<td class="num per-trx-wait">5.000 ms' in page



def test_a_range_within_a_minute_past_the_raw_retention_reads_that_minutes_buckets(client, stopped):
    """The polls are gone: the minute's buckets are the only data there is (as the range's chart draws them).
    Before, its totals read the polls alone: no wait and no transaction, and the page asked whether
    performance_schema was on."""
    response = client.get(f"/servers/{stopped.pk}/waits/", {"from": iso_utc(at(31)), "to": iso_utc(at(34))})
    # Minute 5: polls 30..35, 1,500 transactions each; waits 4 and 1 ms per transaction.
    per_trx = response.context["per_trx"]
    assert per_trx.transactions == 6 * 1500
    assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)
    rows = {r.event: r.time_ps for r in response.context["rows"]}
    assert rows == {EV1: 6 * 1500 * 4 * 10**9, EV2: 6 * 1500 * 10**9}
    assert "No wait events recorded" not in response.content.decode()


@pytest.fixture
def stopped_mid_minute(admin_user, client):
    """TPS for 30 minutes; the wait summary stopped halfway through minute 14 (its last poll 86: polls 84..86 of
    the minute's 84..89), and node_exporter started there (poll 87)."""
    client.force_login(admin_user)
    server = data.make_server("db3", poll_interval=10, node_exporter_url="http://127.0.0.1:9100/metrics")
    write(server, list(POLLS), list(range(1, 87)), tuple(range(87, 181)))
    return server


def test_a_range_within_a_minute_where_the_wait_summary_stopped_reads_that_minutes_buckets(client,
                                                                                          stopped_mid_minute):
    """The range's totals are minute 14's buckets (the only data there is): TPS's 60 s, the wait summary's 30 s.
    Their seconds differ, so the figures are read bucket by bucket; those wholly inside the 30 s range are none,
    and the page showed the waits with no figure per transaction."""
    per_trx = waits_page(client, stopped_mid_minute, at(85), at(88))
    # Minute 14: TPS's 6 polls of 2,400 transactions over 60 s; the wait summary's polls 84..86 over 30 s, each
    # waiting 5 ms per transaction of TPS's same poll: 3 x 2,400 x 5 ms = 36 s over 7,200 transactions; and
    # node_exporter's polls 87..89 over the other 30 s, 3 x 2,400 x 2 ms of CPU over 7,200. Before, both blank.
    assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)
    assert per_trx.wait_seconds == 30
    assert per_trx.cpu_ms == pytest.approx(2.0, rel=1e-9)


@pytest.fixture
def across_an_hour(admin_user, client):
    """TPS and the wait summary from minute -1 (the hour before T0: polls -6..-1) to minute 61 (poll 371)."""
    client.force_login(admin_user)
    server = data.make_server("db4", poll_interval=10)
    polls = list(range(-6, 372))
    write(server, polls, polls)
    return server


def test_a_range_from_mid_minute_across_an_hour_reads_the_minutes_wholly_inside(client, across_an_hour):
    """From 30 s into minute -1 to the end of minute 60: the range's totals are read in parts (the ragged
    minute, the hour T0..T0+1h, minute 60). Before, the first part held no whole minute and kept minute -1's
    bucket: 5,400 transactions and 60 s of which 30 s lie before the range (1,469,400 over 3,720 s)."""
    per_trx = waits_page(client, across_an_hour, at(-3), T0 + timedelta(minutes=61))
    # Minutes 0..60 wholly inside: 6 x (1000 + 1100 + ... + 7000) = 6 x 244,000 transactions over 3,660 s.
    assert per_trx.transactions == 1_464_000
    assert per_trx.wait_seconds == 3660
    assert per_trx.wait_ms == pytest.approx(5.0, rel=1e-9)


def test_a_wait_summary_stopped_before_the_ranges_whole_minutes_lists_no_wait(client, stopped):
    """From poll 87 (30 s into minute 14, the wait summary's last) to past minute 29: minutes 15..29 are wholly
    inside and hold no wait. Before, a counter with no bucket wholly inside kept minute 14's (the range holds
    3 of its 6 polls): 72 s of waits listed beside the transactions of minutes 15..29."""
    response = client.get(f"/servers/{stopped.pk}/waits/", {"from": iso_utc(at(87)), "to": iso_utc(END)})
    per_trx = response.context["per_trx"]
    # 6 x (2500 + 2600 + ... + 3900) = 6 x 48,000 transactions; node_exporter's 2 ms of CPU each.
    assert per_trx.transactions == 288_000
    assert response.context["rows"] == []
    assert per_trx.wait_ms is None
    assert per_trx.cpu_ms == pytest.approx(2.0, rel=1e-9)
