"""A stall whose poll found the counters reset says what reset them, as Uptime tells: FLUSH STATUS or a restart.

Polls every 5 s at 500 TPS, Uptime 1000 s at the first; the poll at 100 s found the counters reset (it stores no
interval, so TPS over (95, 100] is unknown). Before, both read "no polls: outage or restart", though every poll
was made.
"""

from datetime import UTC, timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db
RESET_AT = 100


def polls(server_id: int, uptime_at_reset: int, flushed_at_reset: int) -> list[Sample]:
    """global_status every 5 s over 0..300 s; the poll at RESET_AT found Uptime and Uptime_since_flush_status at the
    values given, both going on from there (the server never flushed before: the two equal until then)."""
    out = []
    for at in range(0, 301, 5):
        ts = RECENT_T0 + timedelta(seconds=at)
        if at < RESET_AT:
            gauges = {"Uptime": 1000 + at, "Uptime_since_flush_status": 1000 + at, "Threads_running": 4}
        else:
            gauges = {
                "Uptime": uptime_at_reset + at - RESET_AT,
                "Uptime_since_flush_status": flushed_at_reset + at - RESET_AT,
                "Threads_running": 4,
            }
        if at in (0, RESET_AT):
            out.append(Sample(server_id, "global_status", ts, None, gauges))
        else:
            out.append(Sample(server_id, "global_status", ts, 5.0, {"tps": 500 * 5, **gauges}, frozenset({"tps"})))
    return out


def dips_table(client, server) -> str:
    body = client.get(
        f"/servers/{server.pk}/stability/",
        {
            "from": f"{RECENT_T0 + timedelta(seconds=1):%Y-%m-%dT%H:%M:%SZ}",
            "to": f"{RECENT_T0 + timedelta(seconds=300):%Y-%m-%dT%H:%M:%SZ}",
        },
    ).content.decode()
    return body.split('<table class="dips">')[1].split("</table>")[0]


def hms(seconds: int) -> str:
    return f"{(RECENT_T0 + timedelta(seconds=seconds)).astimezone(UTC):%H:%M:%S}"


def run_report_dips(client, server) -> str:
    """The dips table of a run over the same range, on its report."""
    run = Run.objects.create(name="r", server=server, started_at=RECENT_T0 + timedelta(seconds=1),
                             ended_at=RECENT_T0 + timedelta(seconds=300))
    body = client.get(f"/runs/{run.pk}/report/").content.decode()
    return body.split('<section class="card" id="dips">')[1].split("</table>")[0]


@pytest.mark.parametrize("table_of", [dips_table, run_report_dips], ids=["stability page", "run report"])
def test_a_flush_status_is_said_with_its_time(admin_client, table_of):
    server = make_server("flushed")
    # FLUSH STATUS 3 s before the poll at 100 s: Uptime went on (1100), Uptime_since_flush_status is 3.
    write_samples(polls(server.pk, uptime_at_reset=1100, flushed_at_reset=3))
    table = table_of(admin_client, server)
    assert f"counters reset by FLUSH STATUS at {hms(97)} UTC, no restart (Uptime went on)" in table
    assert "outage or restart" not in table and "restarted" not in table


def test_a_restart_is_said_with_its_time(admin_client):
    server = make_server("restarted")
    # Restarted 2 s before the poll at 100 s: Uptime (and since flush) 2, the boot time 98 s, not 1000 s before 0.
    write_samples(polls(server.pk, uptime_at_reset=2, flushed_at_reset=2))
    table = dips_table(admin_client, server)
    assert f"server restarted at {hms(98)} UTC (Uptime began again)" in table
    assert "outage or restart" not in table and "FLUSH STATUS" not in table
