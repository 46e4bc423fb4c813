"""The purge page's figures come from the polls, not from the chart's downsampled points."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboards.analysis.purge_growth import Since, Trend, current_trend, time_to_threshold
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import get_csv
from testing.servers import make_server

STEP = 5  # seconds between polls
FALL = 61  # the last polls: 340 down to 40 by 5 a poll


def history_polls(end):
    """30 hours of polls up to `end`: a wavy line (1000 to 1370 by 37 a poll, then back to 1000), then
    5 minutes falling by 5 a poll. The wavy line's last poll reads 1037, up from 1000: the turn."""
    n = 30 * 3600 // STEP + 1
    values = [1000 + 37 * (i % 11) for i in range(n - FALL)] + [340 - 5 * j for j in range(FALL)]
    assert values[-FALL - 2:-FALL] == [1000, 1037]
    return [(end - timedelta(seconds=STEP * (n - 1 - i)), v) for i, v in enumerate(values)]


def slope_per_minute(polls, last, first=None):
    """Least squares by hand over the polls from `first` (default: the turn, the poll before the fall)
    up to `last` (both ends included)."""
    first = polls[-FALL - 1][0] if first is None else first
    pts = [(t, v) for t, v in polls if first <= t <= last]
    xs = [(t - pts[0][0]).total_seconds() for t, _ in pts]
    ys = [v for _, v in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


@pytest.fixture
def polled():
    server = make_server()
    polls = history_polls(timezone.now().replace(microsecond=0) - timedelta(seconds=2))
    write_samples(Sample(server.pk, "history_length", t, float(STEP), {"history_list_length": v}) for t, v in polls)
    return server, polls


@pytest.mark.parametrize("query", ["range=24h", "range=7d", "range=15m"])
def test_purge_page_says_the_last_poll_and_its_trend_at_every_range(admin_client, polled, query):
    server, polls = polled
    last_at, last = polls[-1]
    expected = slope_per_minute(polls, last_at)
    assert expected < -1  # draining: the page says so, with no time to the threshold
    context = admin_client.get(f"/servers/{server.pk}/purge/?{query}&threshold=45").context
    assert context["current"] == 40 == last
    assert context["trend"].per_minute == pytest.approx(expected, rel=1e-9)
    assert context["trend"].since == polls[-FALL - 1][0] and context["trend"].polls == FALL + 1
    assert context["above_since"] is None  # 40 < 45


def test_the_newest_poll_and_above_since_share_one_read_of_the_range(admin_client, polled):
    """The newest poll is the first of the range's polls read back from its end, and "above since" goes on from
    it: the trend's own window up to that poll is the only other read of the history (it was read three times)."""
    server, _polls = polled
    with CaptureQueriesContext(connection) as seen:
        context = admin_client.get(f"/servers/{server.pk}/purge/?range=24h&threshold=45").context
    assert context["current"] == 40 and context["above_since"] is None  # 40 < 45: no poll further back is read
    # The metric's id comes from the request's one catalog read; each read of its polls is one block read.
    assert len([q for q in seen.captured_queries if "FROM store_block_series" in q["sql"]]) == 2


def test_a_past_range_says_its_last_poll_and_the_trend_up_to_it(admin_client, polled):
    server, polls = polled
    end = polls[-1][0] - timedelta(seconds=62)  # between two polls
    last_at, last = polls[-14]  # the last poll at or before `end`
    assert last_at <= end < polls[-13][0]
    start = end - timedelta(minutes=15)
    q = f"from={start:%Y-%m-%dT%H:%M:%S}&to={end:%Y-%m-%dT%H:%M:%S}"
    context = admin_client.get(f"/servers/{server.pk}/purge/?{q}&threshold=100").context
    assert context["current"] == last == 105
    assert context["trend"].per_minute == pytest.approx(slope_per_minute(polls, last_at), rel=1e-9)
    # Every poll written up to the range's end read 100 or more (105 at the least): above it since at
    # least the first poll, 30 hours before the range, with none below before it.
    assert context["above_since"] == Since(polls[0][0], at_least=True)


def test_the_fleet_trend_is_the_purge_pages_slope(admin_client, polled):
    """Both fit the current segment up to the last poll (2 s before now)."""
    server, polls = polled
    expected = slope_per_minute(polls, polls[-1][0])
    rows = get_csv(admin_client, "/export/fleet.csv")
    cell = rows[1][rows[0].index("history trend (per min, since the last turn)")]
    assert float(cell) == pytest.approx(expected, rel=1e-6)


def test_the_trend_is_fitted_after_the_last_hole_only():
    t0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
    before = [(t0 + timedelta(seconds=10 * i), 1000 + 25 * i) for i in range(6)]  # growing 150/min
    after = [(t0 + timedelta(seconds=250 + 10 * i), 5000 - 10 * i) for i in range(6)]  # back: draining 60/min
    ts = [t for t, _ in before] + [t0 + timedelta(seconds=150)] + [t for t, _ in after]
    values = [v for _, v in before] + [None] + [v for _, v in after]  # the store's None at the hole
    trend = current_trend(ts, values)
    assert trend.per_second * 60 == pytest.approx(-60.0) and trend.window == timedelta(seconds=50)
    assert trend.after_hole and trend.since == after[0][0]


def test_a_threshold_beyond_any_forecast_gives_no_time_instead_of_an_error():
    growing = Trend(per_second=1.0, window=timedelta(minutes=5), polls=30, noise=1.0)
    assert time_to_threshold(100, growing, 100 + 3600) == timedelta(hours=1)  # 3,600 to go at 1 / s
    assert time_to_threshold(100, growing, 1e30) is None  # 3e22 years: the fuzz's threshold made a 500


def test_a_past_range_names_its_figures_at_its_end_not_now(admin_client, polled):
    """Seen in the audit: a range that ended minutes ago headed its last poll "history list length now"."""
    server, polls = polled
    end = polls[-1][0] - timedelta(minutes=10)
    q = f"from={end - timedelta(minutes=15):%Y-%m-%dT%H:%M:%S}&to={end:%Y-%m-%dT%H:%M:%S}"
    past = admin_client.get(f"/servers/{server.pk}/purge/?{q}").content.decode()
    assert "history list length at the end of this range" in past and "trend at the end of this range" in past
    assert "length now" not in past and "trend now" not in past
    live = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    assert "history list length now" in live and "trend now" in live


@pytest.mark.django_db
def test_one_late_poll_does_not_restart_the_pages_trend(admin_client):
    # History polled every 2 s, growing 10 a second; one poll comes 6 s after the one before (a hole to the store:
    # over 1.5 intervals), then every 2 s again. By hand: one line of 40 + 10 polls, 600 a minute, from the first.
    server = make_server()
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=2)
    secs = [2 * i for i in range(40)] + [84 + 2 * i for i in range(10)]
    write_samples(Sample(server.pk, "history_length", start + timedelta(seconds=s), 2.0,
                         {"history_list_length": 1000 + 10 * s}) for s in secs)
    trend = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").context["trend"]
    assert trend.since == start and trend.polls == 50 and trend.per_minute == pytest.approx(600)
    assert trend.direction == "growing" and not trend.after_hole  # before: since 84 s, 10 polls, "polling resumed"
