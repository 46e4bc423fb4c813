"""A dip's times on the stability page when its points are minute rollups: the buckets that held a low poll."""

from datetime import UTC, datetime, timedelta

from testing.dashboards import make_server, write_polls


def test_a_day_range_lists_a_dip_as_the_minutes_whose_polls_were_low(admin_client):
    server = make_server("rolled")
    end = datetime.now(UTC).replace(second=0, microsecond=0)
    start = write_polls(server, 90, end=end)  # polls 30..35 are the dip: 6 TPS, the rest ~530
    response = admin_client.get(f"/servers/{server.pk}/stability/?range=24h")
    assert response.context["pixel"] >= timedelta(minutes=1)  # the chart reads minute rollups
    # Poll 30 is at end - 9:50, in the minute from end - 10:00; poll 35 at end - 9:00 opens the next minute.
    assert start + timedelta(seconds=300) == end - timedelta(minutes=9, seconds=50)
    dips = [(d.start, d.end, d.stalled) for d, _ in response.context["dips"]]
    assert dips == [(end - timedelta(minutes=10), end - timedelta(minutes=8), False)]
