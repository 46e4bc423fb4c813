"""Condition waits of sessions blocked on a lock (metadata locks: FTWRL) are ranked as waits by default;
idle ones stay hidden, and the note names a hidden one that moves against TPS."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.topwaits import WaitRow, shown
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import TRX_SYS, figures, get_csv, make_server

MDL = "wait/synch/cond/sql/MDL_context::COND_wait_status"  # sessions waiting for FTWRL's global read lock
IDLE = "wait/synch/cond/mysys/COND_timer"  # a background thread idling
SLEEP = "wait/synch/cond/sql/Item_func_sleep::cond"  # SLEEP(): hidden, the application asked to wait
STALL = (20, 21)  # the polls whose TPS falls to 100 from 5,000


def test_a_metadata_lock_wait_is_ranked_and_idle_condition_waits_are_not():
    rows = [WaitRow(IDLE, 10, 600, 0.6), WaitRow(MDL, 4, 300, 0.3), WaitRow(TRX_SYS, 5, 100, 0.1)]
    kept, hidden = shown(rows)
    assert [(r.event, r.share) for r in kept] == [(MDL, 0.75), (TRX_SYS, 0.25)]
    assert (hidden.events, hidden.time_ps) == (1, 600)


def stall_polls(server_id: int, start: datetime, n: int = 40) -> list[Sample]:
    """10 s polls: 5,000 trx a poll, 100 in STALL; the lock wait and SLEEP's time rise exactly as TPS falls."""
    out = [Sample(server_id, "global_status", start, None, {"Threads_running": 4})]
    for i in range(1, n):
        ts, trx = start + timedelta(seconds=10 * i), 100 if i in STALL else 5000
        status = {"tps": trx, "qps": trx * 9, "Com_commit": trx}
        out.append(Sample(server_id, "global_status", ts, 10.0, {**status, "Threads_running": 4}, frozenset(status)))
        waits = {f"wait.time_ps:{IDLE}": 90 * 10**12, f"wait.count:{IDLE}": 10,
                 f"wait.time_ps:{MDL}": (5000 - trx) * 10**9 + 10**6, f"wait.count:{MDL}": 4,
                 f"wait.time_ps:{SLEEP}": 2 * (5000 - trx) * 10**9 + 10**6, f"wait.count:{SLEEP}": 1,
                 f"wait.time_ps:{TRX_SYS}": 10**12 + i * 10**9, f"wait.count:{TRX_SYS}": 1000}
        out.append(Sample(server_id, "pfs_waits", ts, 10.0, waits, frozenset(waits)))
    return out


@pytest.fixture
def stalled(client, admin_user, db):
    client.force_login(admin_user)
    server = make_server()
    end = datetime.now(UTC).replace(microsecond=0)
    write_samples(stall_polls(server.pk, end - timedelta(seconds=390)))
    return server


def test_the_stability_page_ranks_the_lock_wait_and_names_a_hidden_wait_that_moves_against_tps(client, stalled):
    response = client.get(f"/servers/{stalled.pk}/stability/?range=1h")
    names = [t["name"] for t in figures(response)["stability-chart"]["data"] if t["yaxis"] == "y2"]
    assert names == [TRX_SYS, MDL]
    body = response.content.decode()
    # Each rises by exactly 4,900e9 ps (twice that for SLEEP) for each 4,900 trx TPS loses: correlation -1.
    verdict = body.split('id="verdict"')[1].split("</section>")[0]
    assert f"<code>{MDL}</code> (correlation with TPS -1.00)" in verdict
    note = body.split('class="cond-note"')[1].split("</span>")[0]
    assert "2 events with time in this range hidden" in note and "not what limits TPS" not in note
    assert f"moves against TPS: <code>{SLEEP}</code> (correlation with TPS -1.00)" in note
    assert 'href="?range=1h&amp;cond=1">include condition waits</a> to see it' in note


def test_the_waits_page_and_its_csv_rank_the_lock_wait(client, stalled):
    body = client.get(f"/servers/{stalled.pk}/waits/?range=1h").content.decode()
    table = body.split("<table")[1].replace("<wbr>", "")
    assert MDL in table and IDLE not in table and SLEEP not in table
    assert "other than lock waits are hidden: 2 events" in body
    rows = get_csv(client, "/export/topwaits.csv", server=stalled.name, range="1h", cond="0")
    assert [r[1] for r in rows[1:]] == [TRX_SYS, MDL]  # 39e12 + 780e9 ps against 9,800e9 + 39e6: stall_polls
