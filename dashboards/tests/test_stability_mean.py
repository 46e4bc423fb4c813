"""The stability page's mean TPS is every transaction over the time its polls cover, at any range."""

from datetime import UTC, datetime, timedelta

import pytest

from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db


def polls(server_id: int, end: datetime, pairs: int) -> list[Sample]:
    """Pairs of polls ending at `end`: 8 s at 100 TPS, then 12 s at 200 TPS (the first poll has no delta)."""
    start = end - timedelta(seconds=20 * pairs)
    out = [Sample(server_id, "global_status", start, None, {"Threads_running": 1})]
    t = start
    for _ in range(pairs):
        for seconds, rate in ((8, 100), (12, 200)):
            t += timedelta(seconds=seconds)
            out.append(Sample(server_id, "global_status", t, float(seconds), {"tps": seconds * rate},
                              frozenset({"tps"})))
    return out


def mean_cell(admin_client, server, start: datetime, end: datetime) -> str:
    body = admin_client.get(f"/servers/{server.pk}/stability/",
                            {"from": start.replace(tzinfo=None).isoformat(),
                             "to": end.replace(tzinfo=None).isoformat()}).content.decode()
    return body.split("<th>mean</th><td class=\"num\">")[1].split("</td>")[0]


@pytest.mark.parametrize("hours", [1, 24])
def test_the_mean_weighs_each_poll_by_its_interval(admin_client, hours):
    """Each 20 s pair does 800 + 2,400 transactions: 160 TPS, not the 150 of the two rates' average.

    At 24 h the chart's points are per-minute rollups; the mean must not come from them.
    """
    server = make_server()
    end = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)
    write_samples(polls(server.pk, end, pairs=26 * 180))  # 26 h
    start = end - timedelta(hours=hours)  # a pair boundary: the range holds whole pairs
    assert mean_cell(admin_client, server, start, end) == f"{(800 + 2400) / 20:,.1f}"
