"""A stall with no restart and no FLUSH STATUS (Uptime went on by the time between) is an outage: its row says so,
and whose, from the monitor's poll history: the server's (polls made and failed) or the monitor's (none made).

Polls every 5 s at 500 TPS, Uptime 1000 s at the first; none stored from 105 to 155 s, the poll at 160 s back with
Uptime 1160 (the boot time unmoved). Before, each read "no polls: outage or restart", though Uptime said no restart.
"""

from datetime import timedelta

import pytest

from collectors.models import PollRecord
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db
HOLE = range(105, 160, 5)  # the polls that stored nothing
SERVER_DOWN = "server unreachable or not answering (its polls failed), no restart (Uptime went on)"
NOT_POLLED = ("not polled: an outage of the monitor itself (no poll was made: its worker or beat stopped or "
              "behind), no restart (Uptime went on)")
OUTAGE = "outage, no restart (Uptime went on): the server unreachable or not answering, or not polled"


def polls(server_id: int, hole: range = HOLE, late: int = 0) -> list[Sample]:
    """late: seconds the poll after the hole was stored after its Uptime was read."""
    out, previous = [], None
    for at in range(0, 301, 5):
        if at in hole:
            continue
        ts = RECENT_T0 + timedelta(seconds=at)
        uptime = 1000 + at - (late if at == hole.stop else 0)
        gauges = {"Uptime": uptime, "Uptime_since_flush_status": uptime, "Threads_running": 4}
        if previous is None:
            out.append(Sample(server_id, "global_status", ts, None, gauges))
        else:
            seconds = at - previous
            out.append(Sample(server_id, "global_status", ts, float(seconds), {"tps": 500 * seconds, **gauges},
                              frozenset({"tps"})))
        previous = at
    return out


def history(server_id: int, failed_in_hole: bool) -> None:
    """The monitor's poll history: every 5 s, ok outside the hole; inside it failed polls, or none."""
    records = [(at, at not in HOLE) for at in range(0, 301, 5) if failed_in_hole or at not in HOLE]
    PollRecord.objects.bulk_create(
        PollRecord(server_id=server_id, slot=k, started_at=RECENT_T0 + timedelta(seconds=at), duration_ms=3.0,
                   ok=ok, error="" if ok else "(2013, 'Lost connection to server during query (timed out)')")
        for k, (at, ok) in enumerate(records))


def dip_rows(client, server) -> str:
    body = client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{RECENT_T0 + timedelta(seconds=1):%Y-%m-%dT%H:%M:%SZ}",
        "to": f"{RECENT_T0 + timedelta(seconds=300):%Y-%m-%dT%H:%M:%SZ}"}).content.decode()
    return body.split('<table class="dips">')[1].split("</table>")[0].split("<tbody>")[1]


def test_an_outage_whose_polls_failed_is_the_servers(admin_client):
    server = make_server("hung")  # SIGSTOPped: its polls timed out, then it answered with Uptime gone on
    write_samples(polls(server.pk))
    history(server.pk, failed_in_hole=True)
    rows = dip_rows(admin_client, server)
    assert rows.count("<tr>") == 1 and f"{RECENT_T0 + timedelta(seconds=160):%H:%M:%S}" in rows  # 100 to 160 s
    assert SERVER_DOWN in rows
    assert "outage or restart" not in rows and "restarted" not in rows


def test_an_outage_with_no_poll_made_is_the_monitors(admin_client):
    server = make_server("worker-down")
    write_samples(polls(server.pk))
    history(server.pk, failed_in_hole=False)
    rows = dip_rows(admin_client, server)
    assert NOT_POLLED in rows and "outage or restart" not in rows


def test_an_outage_past_the_poll_history_says_both(admin_client):
    server = make_server("long-ago")  # no poll history reaches it (an imported run's server has none)
    write_samples(polls(server.pk))
    rows = dip_rows(admin_client, server)
    assert OUTAGE in rows and "outage or restart" not in rows


def test_a_poll_read_late_after_a_stall_is_no_restart(admin_client):
    # Polls missed at 105 and 110; the poll at 115 was stored 5 s after the server answered (a starved worker, seen
    # live): Uptime 1110 at 115 s puts the boot time at -995 s, 5 s after -1000 s, but long before the stall's
    # start (100 s): no restart. Before: "server restarted at <T0 - 995 s> UTC (Uptime began again)".
    server = make_server("late")
    write_samples(polls(server.pk, hole=range(105, 115, 5), late=5))
    rows = dip_rows(admin_client, server)
    assert rows.count("<tr>") == 1 and OUTAGE in rows and "restarted" not in rows
