"""A fast drain's last fall is the drain carrying on, not a read view released.

Seen live (audit of 2026-11-27): during a fast drain the purge page read "Draining 67,174 / min", and at the next
poll, the history down from 14,202 to 4,063 (under a quarter of the poll two before: the cliff rule), "Fell from
14,202 to 4,063 (a read view released, or a stall of purge over)": the history had been falling for a minute, so
the fall was no release nor a stall's end, and the two sentences contradicted each other.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from dashboards import reads
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def drained(server, last_value: float) -> list:
    """Polls every 5 s: 30 at 1,000 a poll up to 30,000 (a read view held), then 5,600 a poll down (67,200 / min)
    for 4 polls to 7,600, then `last_value`."""
    climb = [1000.0 * i for i in range(1, 31)]  # 1,000 .. 30,000
    drain = [30_000 - 5_600 * k for k in range(1, 5)]  # 24,400, 18,800, 13,200, 7,600
    values = climb + drain + [last_value]
    now = timezone.now().replace(microsecond=0)
    times = [now - timedelta(seconds=5 * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples([Sample(server.pk, "history_length", t, 5.0, {reads.HISTORY: v})
                   for t, v in zip(times, values, strict=True)])
    return times


def verdict_of(admin_client, server) -> str:
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=1000000").content.decode()
    return body.split('id="purge-verdict"')[1].split("</section>")[0]


def test_the_poll_before_reads_draining(admin_client):
    server = make_server("draining")
    climb = [1000.0 * i for i in range(1, 31)]
    values = climb + [30_000 - 5_600 * k for k in range(1, 5)]
    now = timezone.now().replace(microsecond=0)
    times = [now - timedelta(seconds=5 * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples([Sample(server.pk, "history_length", t, 5.0, {reads.HISTORY: v})
                   for t, v in zip(times, values, strict=True)])
    # By hand: 5,600 an undo log a poll of 5 s down = 67,200 / min.
    assert "Draining</strong> 67,200.0 / min" in verdict_of(admin_client, server)


def test_a_fall_under_a_quarter_during_a_drain_is_said_as_the_drain_carrying_on(admin_client):
    server = make_server("drain-cliff")
    times = drained(server, 1_800.0)  # 1,800: under a quarter of 13,200 (3,300) and of 7,600 (1,900)
    verdict = verdict_of(admin_client, server)
    assert "(a read view released, or a stall of purge over)" not in verdict
    assert (f"Still draining</strong>: fell from 7,600 to 1,800 at {times[-1]:%H:%M:%S} UTC, "
            "carrying on the drain of 67,200.0 / min before it") in verdict
    reading = purge_reading(server.pk, times[-1], 1_000_000)
    assert reading.startswith(f"Still draining: fell from 7,600 to 1,800 at {times[-1]:%H:%M:%S} UTC, "
                              "carrying on the drain of 67,200.0 / min before it")


def test_a_cliff_after_a_climb_still_reads_a_release(admin_client):
    server = make_server("climb-cliff")
    climb = [1000.0 * i for i in range(1, 31)]
    values = climb + [200.0]
    now = timezone.now().replace(microsecond=0)
    times = [now - timedelta(seconds=5 * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples([Sample(server.pk, "history_length", t, 5.0, {reads.HISTORY: v})
                   for t, v in zip(times, values, strict=True)])
    verdict = verdict_of(admin_client, server)
    assert "Fell</strong> from 30,000 to 200" in verdict
    assert "(a read view released, or a stall of purge over)" in verdict
