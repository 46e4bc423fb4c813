"""The fleet's "now" figures: an old reading is shown with its time, and the trend skips a hole in polling.

Samples are written through the store's ingest as the sources write them (10 s polls); the
expected figures are worked out by hand from those samples in each test's comments.
"""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from collectors.models import ServerHealth
from servers.models import Server
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import get_csv, make_server

pytestmark = pytest.mark.django_db
WAIT = "wait/synch/mutex/innodb/trx_sys_mutex"
STEP = 10  # seconds between polls


@pytest.fixture
def now():
    return timezone.now().replace(microsecond=0)


def polls(server, first, last):
    """Polls every STEP s from `first` to `last`: 5321 transactions and 2.5 s waited a poll, history +10 a poll."""
    n = int((last - first).total_seconds()) // STEP + 1
    samples = []
    for i in range(n):
        ts = first + timedelta(seconds=STEP * i)
        samples.append(Sample(server.pk, "history_length", ts, None, {"history_list_length": 1975 + 10 * i}))
        if i:  # a counter's first poll has no delta
            samples.append(Sample(server.pk, "global_status", ts, float(STEP), {"tps": 5321}, frozenset({"tps"})))
            waited = {f"wait.time_ps:{WAIT}": 25 * 10**11}
            samples.append(Sample(server.pk, "pfs_waits", ts, float(STEP), waited, frozenset(waited)))
    write_samples(samples)
    return first + timedelta(seconds=STEP * (n - 1))


def health(server, last_ok, failures: int = 0, last_poll=None):
    ServerHealth.objects.create(server=server, last_poll_at=last_poll or last_ok, last_success_at=last_ok,
                                consecutive_failures=failures, last_error="connection refused" if failures else "")


def row_of(body: str, name: str) -> str:
    return body.split(f"<strong>{name}</strong>")[1].split("</tr>")[0]


def cells(row: str) -> list[str]:
    return [c.split("</td>")[0] for c in row.split("<td")[1:]]


def csv_rows(client) -> tuple[list[str], dict[str, list[str]]]:
    rows = get_csv(client, "/export/fleet.csv")
    return rows[0], {r[0]: r for r in rows[1:]}


def test_it_shows_a_down_servers_last_readings_with_their_time_not_as_now(admin_client, now):
    down = make_server("down", poll_interval=STEP)
    last = polls(down, now - timedelta(minutes=8), now - timedelta(minutes=3))
    health(down, last, failures=18, last_poll=now)
    up = make_server("up", poll_interval=STEP)
    polls(up, now - timedelta(minutes=8), now - timedelta(seconds=5))
    health(up, now - timedelta(seconds=5))

    body = admin_client.get("/").content.decode()
    # 5321 transactions in 10 s: 532.1/s; history 1975 + 10 x 30 polls = 2275; 2.5e12 ps in 10 s: 0.25 s/s.
    # Last read 3 min ago, 18 polls missed (limit: 3 polls, at least 60 s): not now.
    said = f"at {last.astimezone(UTC):%H:%M:%S} UTC (3 min ago)"
    tps, _, _, history, trend, wait = cells(row_of(body, "down"))[2:8]
    assert "532.1" in tps and said in tps
    assert "2,275" in history and said in history
    assert "0.25 s/s" in wait and said in wait
    # +10 a poll is +60/min, fitted to the polls up to that reading, and said to be that old.
    assert "↑ 60.0/min" in trend and f"fitted up to the reading {said}" in trend
    assert "ago" not in row_of(body, "up")  # read 5 s ago: now

    header, rows = csv_rows(admin_client)
    assert float(rows["down"][header.index("TPS now (/s)")]) == 532.1
    for column in ("TPS read at (UTC)", "history length read at (UTC)", "top wait read at (UTC)"):
        assert rows["down"][header.index(column)] == f"{last.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"
    assert header[:15] == ["server", "address", "state", "why", "version", "TPS now (/s)", "replica lag now (s)",
                           "replica threads stopped", "history list length now",
                           "history trend (per min, since the last turn)", "top wait now", "top wait (s per s)",
                           "top wait share (%)", "alerts firing", "tags"]  # the columns before keep their places


def test_the_csv_writes_when_each_figure_was_read_to_the_second(admin_client, now):
    """Real polls fall on a fraction of a second; the page says 12:00:05, the CSV the same, not 12:00:05.250000."""
    db = make_server("db", poll_interval=STEP)
    last = polls(db, now - timedelta(minutes=5, microseconds=-250_000), now - timedelta(microseconds=-250_000))
    health(db, last)
    header, rows = csv_rows(admin_client)
    whole = f"{now.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"  # last = now + 0.25 s: its second is now's
    for column in ("TPS read at (UTC)", "history length read at (UTC)", "top wait read at (UTC)"):
        assert rows["db"][header.index(column)] == whole
    # One straight line of 31 polls: the trend runs since the first, 5 min before, also to the second.
    since = f"{(now - timedelta(minutes=5)).astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"
    assert rows["db"][header.index("history trend since (UTC)")] == since


def test_a_server_stale_for_20_min_shows_its_readings_and_trend_as_of_then(admin_client, now):
    stale = make_server("stale", poll_interval=STEP)
    last = polls(stale, now - timedelta(minutes=30), now - timedelta(minutes=20))
    health(stale, last)
    body = admin_client.get("/").content.decode()
    said = f"at {last.astimezone(UTC):%H:%M:%S} UTC (20 min ago)"
    tps, _, _, history, trend, wait = cells(row_of(body, "stale"))[2:8]
    # history 1975 + 10 x 60 polls = 2575, its trend +10 a poll: +60/min over the 10 minutes read before it.
    assert "532.1" in tps and said in tps and "2,575" in history and said in history
    assert "↑ 60.0/min" in trend and said in trend and "0.25 s/s" in wait and said in wait
    header, rows = csv_rows(admin_client)
    assert float(rows["stale"][header.index("history trend (per min, since the last turn)")]) == 60
    # One straight line: its segment is all the polls read, the 10 minutes up to the reading.
    assert float(rows["stale"][header.index("history trend fitted over (s)")]) == 600
    assert rows["stale"][header.index("TPS read at (UTC)")] == f"{last.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


def history_polls(server, before, after):
    """history_list_length at (seconds before now, value)."""
    write_samples([Sample(server.pk, "history_length", t, None, {"history_list_length": v}) for t, v in before + after])


def test_the_trend_of_a_server_back_from_an_outage_is_fitted_after_the_hole(admin_client, now):
    back = make_server("back", poll_interval=STEP)
    # 1000 + 25 i every 10 s up to now-4 min; nothing for 3 min 10 s; then 5000, 4990, ... 4950 from now-50 s.
    before = [(now - timedelta(seconds=600 - 10 * i), 1000 + 25 * i) for i in range(37)]
    after = [(now - timedelta(seconds=50 - 10 * j), 5000 - 10 * j) for j in range(6)]
    history_polls(back, before, after)
    health(back, now)
    # Since it came back: -10 every 10 s, a straight line: -60/min over the 50 s from now-50 s to now.
    # (A least-squares line over all the 5 minutes' polls gives about +617.7/min: across the hole.)
    body = admin_client.get("/").content.decode()
    trend = cells(row_of(body, "back"))[6]
    resumed = after[0][0].astimezone(UTC)
    assert "↓ draining 60.0/min" in trend and f"over 50 s, since polling resumed at {resumed:%H:%M:%S} UTC" in trend
    assert "↑" not in trend and "ago" not in trend
    header, rows = csv_rows(admin_client)
    column = header.index("history trend (per min, since the last turn)")
    assert float(rows["back"][column]) == pytest.approx(-60, abs=1e-9)
    assert float(rows["back"][header.index("history trend fitted over (s)")]) == 50


def test_too_few_polls_after_the_hole_give_no_trend_and_say_why(admin_client, now):
    back = make_server("back", poll_interval=STEP)
    before = [(now - timedelta(seconds=600 - 10 * i), 1000 + 25 * i) for i in range(37)]
    after = [(now - timedelta(seconds=10), 5000), (now, 4990)]
    history_polls(back, before, after)
    health(back, now)
    trend = cells(row_of(admin_client.get("/").content.decode(), "back"))[6]
    resumed = after[0][0].astimezone(UTC)
    assert "–" in trend and "/min" not in trend
    assert (f'title="2 polls since polling resumed at {resumed:%H:%M:%S} UTC after a gap: too few to fit a trend'
            in trend)
    header, rows = csv_rows(admin_client)
    assert rows["back"][header.index("history trend (per min, since the last turn)")] == ""


def test_a_host_busy_reading_from_before_node_exporter_stopped_is_not_cpu_busy_now(admin_client, now):
    """The server answers, its node_exporter stopped 5 min ago: 73 % was the host then, not now."""
    db = make_server("db", poll_interval=STEP, node_exporter_url="http://127.0.0.1:9100/metrics")
    polls(db, now - timedelta(minutes=8), now - timedelta(seconds=5))
    health(db, now - timedelta(seconds=5))
    host_read = now - timedelta(minutes=5)
    write_samples([Sample(db.pk, "node_exporter", host_read, float(STEP), {"host.cpu.busy_pct": 73.0})])
    said = f"at {host_read.astimezone(UTC):%H:%M:%S} UTC (5 min ago)"
    cpu = cells(row_of(admin_client.get("/").content.decode(), "db"))[3]
    assert '<a class="muted" href=' in cpu and ">73 %</a>" in cpu and said in cpu
    header, rows = csv_rows(admin_client)
    busy = header.index("CPU busy now (%)")
    assert header[busy - 1:busy + 2] == ["history trend since (UTC)", "CPU busy now (%)", "CPU busy read at (UTC)"]
    assert float(rows["db"][busy]) == 73 and rows["db"][busy + 1] == f"{host_read.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


def test_a_server_added_a_minute_ago_polled_hourly_is_not_blamed_on_the_worker(admin_client, now):
    """A new server's first poll falls somewhere in its first interval, at most a minute (collectors.schedule
    spreads them): one added at 60 min intervals read "is the worker running?" while the worker polled the rest."""
    hourly = make_server("hourly", poll_interval=3600)
    added = now - timedelta(minutes=1)
    Server.objects.filter(pk=hourly.pk).update(created_at=added)
    lost = make_server("lost", poll_interval=STEP)  # added 2 h ago, 10 s polls: its first poll is long overdue
    Server.objects.filter(pk=lost.pk).update(created_at=now - timedelta(hours=2))
    body = admin_client.get("/").content.decode()
    due = f"{(added + timedelta(seconds=60)).astimezone(UTC):%H:%M:%S} UTC"  # within a minute, not an hour
    assert f"first poll due by {due}" in row_of(body, "hourly") and "worker" not in row_of(body, "hourly")
    assert "not polled yet: is the worker running?" in row_of(body, "lost")
