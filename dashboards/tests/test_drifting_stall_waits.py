"""A drifting line's stalls name the wait that grew in them, as periodic or irregular dips and a level change's do.

A read view held open (the history length growing) while locks stalled TPS at irregular times read "Drifting:
history length growing ..." and named no wait: the lock wait's correlation with TPS is weak (its waiters are timed
as each wait ends, in the poll that catches up with the most TPS), and the waits that grew in the dips were judged
for the other verdicts only.
"""

import random
from datetime import UTC, datetime, timedelta

from dashboards.analysis.run_verdict import judge
from dashboards.analysis.verdict_words import verdict_text
from dashboards.figures.common import iso
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server

START = datetime(2026, 11, 28, 6, tzinfo=UTC)
HANDLER = "wait/io/table/sql/handler"  # InnoDB row-lock waits are timed inside the handler call that waited
DATA_IO = "wait/io/file/innodb/innodb_data_file"
PS = 1e12  # ps waited a second: one second a second
LOCKED = (8, 31, 40, 66, 80)  # each lock: this poll and the next at 0 TPS, the one after them catching up


def polls() -> tuple[list[datetime], list[float], dict[str, list[float]], list[float]]:
    """90 polls of 2 s at 100 TPS +- 2 in turn, stalled by LOCKED (then 300 TPS); the handler's wait 6 s a second
    in the stalled polls, 4 in the catch-ups, 0.5 else; the data file's at random around 0.3 (noise); the history
    length growing by 500 a poll."""
    ts = [START + timedelta(seconds=2 * i) for i in range(90)]
    tps = [100.0 + (2 if i % 2 else -2) for i in range(90)]
    handler = [0.5 * PS] * 90
    for k in LOCKED:
        tps[k] = tps[k + 1] = 0.0
        tps[k + 2] = 300.0
        handler[k] = handler[k + 1] = 6 * PS
        handler[k + 2] = 4 * PS
    rng = random.Random(7)
    noise = [max(0.0, rng.gauss(0.3, 0.2)) * PS for _ in range(90)]
    return ts, tps, {HANDLER: handler, DATA_IO: noise}, [1000.0 + 500 * i for i in range(90)]


def test_a_drifting_lines_stalls_name_the_row_lock_wait_that_grew_in_them_and_no_noise():
    ts, tps, waits, history = polls()
    v = judge(ts, tps, waits, history=history)
    assert v.kind == "drifting" and v.history is not None and v.waits == ()
    # By hand: the handler's 6 s a second in the stalls' 10 polls; in the other 80, 5 catch-ups at 4 and 75 at
    # 0.5: 57.5 / 80 = 0.72. The data file's noise grew not.
    assert verdict_text(v)["dips"] == (
        "TPS stalled as well (the dips table lists the stalls); the wait that grew in them: "
        f"{HANDLER} (6.00 s waited a second in them against 0.72)"
    )


def test_a_drifting_line_without_stalls_names_no_wait():
    ts, _tps, waits, history = polls()
    v = judge(ts, [100.0 + (i % 3) for i in range(90)], waits, history=history)
    assert v.kind == "drifting" and v.dip_waits == () and verdict_text(v)["dips"] == ""


def test_the_stability_page_says_the_wait_that_grew_in_a_drifting_lines_stalls(client, admin_user, db):
    """The same polls through the store and the page: a baseline poll, then the 90 polls' counts over 2 s."""
    client.force_login(admin_user)
    server = make_server()
    ts, tps, waits, history = polls()
    first = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    at = [first + (t - START) for t in [START - timedelta(seconds=2), *ts]]
    samples = [Sample(server.pk, "global_status", at[0], None, {"Threads_running": 4})]
    for t, trx, h, d, hist in zip(at[1:], tps, waits[HANDLER], waits[DATA_IO], history, strict=True):
        status = {"tps": round(2 * trx), "Com_commit": round(2 * trx)}
        samples.append(Sample(server.pk, "global_status", t, 2.0, {**status, "Threads_running": 4}, frozenset(status)))
        times = {
            f"wait.time_ps:{HANDLER}": round(2 * h),
            f"wait.count:{HANDLER}": 100,
            f"wait.time_ps:{DATA_IO}": round(2 * d),
            f"wait.count:{DATA_IO}": 10,
        }
        samples.append(Sample(server.pk, "pfs_waits", t, 2.0, times, frozenset(times)))
        samples.append(Sample(server.pk, "history_length", t, None, {"history_list_length": hist}))
    write_samples(samples)
    response = client.get(
        f"/servers/{server.pk}/stability/", {"from": iso(at[0] - timedelta(seconds=1))[:23], "to": iso(at[-1])[:23]}
    )
    verdict = response.content.decode().split('id="verdict"')[1].split("</section>")[0]
    assert "Drifting: history length growing" in verdict
    assert (
        "TPS stalled as well (the dips table lists the stalls); the wait that grew in them: "
        f"{HANDLER} (6.00 s waited a second in them against 0.72)"
    ) in verdict
    assert DATA_IO not in verdict
