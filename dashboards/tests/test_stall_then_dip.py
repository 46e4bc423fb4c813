"""An outage followed by low polls lists the outage as a stall with no polls, and the low polls as a dip of their own.

Seen live: a sysbench run on MariaDB (5 s polls) whose server was killed with kill -9 and restarted about 10 s later,
the load back at 0 TPS for 20 s while it reconnected: the hole and the 0 TPS polls after it read as one row, from the
last poll before the outage to the end of the 0 TPS polls, its lowest TPS 0 beside "no polls": the seconds with no
poll were not told from those that measured 0 TPS.
"""

from datetime import timedelta

import pytest

from collectors.replay import load
from dashboards.analysis.stability import line_dips
from servers.models import Run, Server
from store import query
from store.ingest import write_samples
from store.sample import Sample
from testing import kill9_restart
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db

TPS = 500


def killed_and_restarted(server_id: int, missed: set[int], restart_at: int) -> list[Sample]:
    """global_status polls every 5 s over 0..300 s: none at `missed` (the server down), the one at `restart_at`
    found it restarted (no delta, as collectors.delta stores it), the next ones up to 60 s count 0 transactions
    (the load reconnecting), every other one TPS a second."""
    out, previous = [], None
    for at in range(0, 301, 5):
        if at in missed:
            continue
        ts = RECENT_T0 + timedelta(seconds=at)
        if previous is None or at == restart_at:
            out.append(Sample(server_id, "global_status", ts, None, {"Threads_running": 4}))
        else:
            seconds = at - previous
            rate = 0 if restart_at < at <= 60 else TPS
            out.append(Sample(server_id, "global_status", ts, float(seconds),
                              {"tps": rate * seconds, "Threads_running": 4}, frozenset({"tps"})))
        previous = at
    return out


def offsets(dips) -> list[tuple[float, float, float | None, bool]]:
    return [((d.start - RECENT_T0).total_seconds(), (d.end - RECENT_T0).total_seconds(), d.lowest, d.stalled)
            for d in dips]


@pytest.mark.parametrize(("missed", "restart_at", "stall"), [
    ({35}, 40, (30, 40)),  # down at 35, the poll at 40 found it restarted: no poll measured (30, 40]
    (set(), 35, (30, 35)),  # restarted between two polls: the one at 35 lost (30, 35]
    ({35, 40}, 45, (30, 45)),
])
def test_the_outage_is_a_stall_and_the_zero_polls_after_it_a_dip(missed, restart_at, stall):
    server = make_server("killed")
    write_samples(killed_and_restarted(server.pk, missed, restart_at))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=300), max_points=1200)[0]
    # By hand: no reading over the stall; the polls after the restart's measured 0 TPS from its poll to 60.
    assert offsets(line_dips(tps, TPS / 2)) == [
        (*stall, None, True), (stall[1], 60, 0, False)]  # before: one row (30, 60, 0, True)


def test_the_run_report_lists_the_outage_as_no_polls_and_the_zero_polls_as_a_dip(admin_client):
    server = make_server("killed-run")
    write_samples(killed_and_restarted(server.pk, {35}, 40))
    run = Run.objects.create(name="killed mid-run", server=server, started_at=RECENT_T0,
                             ended_at=RECENT_T0 + timedelta(seconds=300), warmup_seconds=0)
    response = admin_client.get(f"/runs/{run.pk}/report/")
    assert offsets(response.context["dips"]) == [(30, 40, None, True), (40, 60, 0, False)]
    rows = response.content.decode().split('id="dips"')[1].split("</table>")[0].split("<tr>")[2:]
    assert "10 s" in rows[0] and "no polls: outage or restart" in rows[0]
    assert "20 s" in rows[1] and "no polls" not in rows[1]


def test_the_recorded_kill_and_restart_lists_a_stall_then_a_dip(admin_client):
    # testing/kill9_restart.py, loaded through the delta engine as a poll would store it. By hand: the last poll
    # before the kill read at 44.862 s; none until the one at 59.837 s, which found the restart (no delta): the
    # stall 44.862-59.837, 14.975 s. The next five (to 79.832) counted no insert: 0 TPS, a dip 59.837-79.832.
    t0 = (RECENT_T0 + timedelta(seconds=1)).timestamp()
    load(kill9_restart.collection(t0), "killed-recorded")
    server = Server.objects.get(name="killed-recorded")
    first = RECENT_T0 + timedelta(seconds=1)
    run = Run.objects.create(name="kill -9 mid-run", server=server, started_at=first,
                             ended_at=first + timedelta(seconds=115), warmup_seconds=0)
    dips = admin_client.get(f"/runs/{run.pk}/report/").context["dips"]
    assert [(round((d.start - first).total_seconds(), 3), round((d.end - first).total_seconds(), 3), d.lowest,
             d.stalled) for d in dips] == [(44.862, 59.837, None, True), (59.837, 79.832, 0, False)]
