"""How deep periodic dips are and which wait grew in them, said as one reads them off the chart.

Seen live on MariaDB 10.11 (2 s polls): FLUSH TABLES WITH READ LOCK held 4 s every 20 s under sysbench
oltp_read_write at --rate 100. Each lock left two polls near 0, then a poll catching up (210-330 TPS).
MDL_context::COND_wait_status ran at 6.1 s waited a second in the dips, 0.5 between, but its waiters are
timed as each wait ends, so the catch-up poll carried 4 s a second of it too: its correlation with TPS was
-0.26, and the page named no wait and no depth ("Periodic dips every 20 s (11 occurrences, each 4 s long)").
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dashboards.analysis.run_verdict import judge, moving_lines
from dashboards.analysis.verdict_words import hidden_said, verdict_text
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server

START = datetime(2026, 11, 28, 2, 42, tzinfo=UTC)
MDL = "wait/synch/cond/sql/MDL_context::COND_wait_status"
HANDLER = "wait/io/table/sql/handler"
HIDDEN = "wait/synch/cond/sql/MYSQL_BIN_LOG::COND_queue_busy"  # a condition wait the rankings leave out
PS = 1e12  # ps waited a second: one second a second


@dataclass(frozen=True)
class Line:
    """A chart line made by hand (run_verdict.ChartPoints)."""

    ts: list[datetime]
    values: list[float | None]


def polls() -> tuple[list[datetime], list[float], dict[str, list[float]]]:
    """60 polls of 2 s at 100 TPS; polls 10-11, 20-21, ..., 50-51 at 0 (a lock), each followed by a catch-up at
    300. The MDL wait: 8 s a second in the locked polls, 4 in the catch-ups (the waits' ends), else 0; the
    handler's 0.1 throughout."""
    ts = [START + timedelta(seconds=2 * i) for i in range(60)]
    locked = {k + d for k in range(10, 60, 10) for d in (0, 1)}
    caught = {k + 2 for k in range(10, 60, 10)}
    tps = [0.0 if i in locked else 300.0 if i in caught else 100.0 for i in range(60)]
    mdl = [8 * PS if i in locked else 4 * PS if i in caught else 0.0 for i in range(60)]
    return ts, tps, {MDL: mdl, HANDLER: [0.1 * PS] * 60}


def test_periodic_dips_say_their_depth_and_the_wait_that_grew_in_them():
    ts, tps, waits = polls()
    v = judge(ts, tps, waits)
    assert (v.kind, round(v.period or 0), len(v.dips)) == ("periodic", 20, 5)
    assert v.waits == ()  # by hand, MDL's correlation with TPS is -0.31: no wait "moves against TPS"
    # By hand: the dips' 10 polls at 0; the other 50, 45 at 100 and 5 at 300: 6,000 / 50 = 120.0. MDL: 8 s a
    # second in the dips, 5 x 4 / 50 = 0.4 in the others; the handler's 0.1 in both grew not.
    assert verdict_text(v)["dips"] == (
        f"TPS averaged 0.0 in the dips' polls against 120.0 in the others; the wait that grew in them: {MDL} "
        "(8.00 s waited a second in them against 0.40)")


def test_a_steady_line_says_no_dips():
    ts, _tps, waits = polls()
    v = judge(ts, [100.0 + (i % 3) for i in range(60)], waits)
    assert v.kind == "steady" and verdict_text(v)["dips"] == ""


def test_periodic_dips_on_a_line_that_changed_level_say_the_level_change_too():
    """Seen live: sysbench at --rate 120, then 60 from 02:49:20, FTWRL held 5 s at 4 of 5 times on a 69 s grid,
    read "Periodic dips every 69 s" and said the halving nowhere but in the dips table's heading."""
    ts = [START + timedelta(seconds=2 * i) for i in range(100)]
    stalled = {k + d for k in range(5, 100, 10) for d in (0, 1)}  # 4 s at 0 every 20 s
    tps = [0.0 if i in stalled else 100.0 if i < 50 else 50.0 for i in range(100)]
    v = judge(ts, tps)
    assert (v.kind, round(v.period or 0)) == ("periodic", 20)
    # By hand: the levels less their stalls, 100 then 50, from the 50th poll (02:43:40): -50 %.
    assert verdict_text(v)["shifted"] == "TPS from 100.0 to 50.0 at 02:43:40 (-50 %)"
    assert verdict_text(v)["levels"].startswith("Two levels, not a drift: the load or a setting changed at 02:43:40")


def test_the_stalls_of_a_level_change_name_the_wait_that_grew_in_them():
    """Seen live: sysbench at --rate 100, then 50, FTWRL held 5 s at five irregular times: "Level change: TPS
    from 97.1 to 50.9", the five stalls named, and no wait (MDL_context::COND_wait_status grew in each)."""
    ts = [START + timedelta(seconds=2 * i) for i in range(60)]
    stalled = {8, 9, 40, 41, 52, 53}
    tps = [0.0 if i in stalled else 100.0 if i < 30 else 50.0 for i in range(60)]
    mdl = [8 * PS if i in stalled else 0.0 for i in range(60)]
    v = judge(ts, tps, {MDL: mdl, HANDLER: [0.1 * PS] * 60})
    assert v.kind == "shifted" and len(v.stalls) == 3
    # By hand: MDL 8 s a second in the stalls' 6 polls, 0 in the other 54; the handler's 0.1 in both.
    assert verdict_text(v)["dips"] == (
        f"In the stalls, the wait that grew in them: {MDL} (8.00 s waited a second in them against 0.00)")


def test_a_hidden_condition_wait_that_grew_only_in_the_dips_is_flagged():
    """A condition wait the rankings hide (cond=0) with the MDL wait's shape: its correlation with TPS (-0.31 by
    hand) flagged nothing, so the note under the chart called it idle where the verdict with cond=1 names it as
    grown in the dips. The verdict's dips flag it."""
    ts, tps, waits = polls()
    v = judge(ts, tps, waits)
    line = Line(ts, waits[MDL])
    assert moving_lines(Line(ts, tps), [(HIDDEN, line)]) == ()  # no dips given: the correlation alone
    # By hand, as the verdict's: 8 s a second in the dips' 10 polls, 5 x 4 / 50 = 0.4 in the others.
    assert hidden_said(moving_lines(Line(ts, tps), [(HIDDEN, line)], v.dips)) == [
        (HIDDEN, "8.00 s waited a second in the dips against 0.40 between them")]


def test_the_stability_page_flags_a_hidden_condition_wait_that_grew_in_the_dips(client, admin_user, db):
    """polls() written as a server's samples (10 s polls, the wait hidden by default), read by the page."""
    client.force_login(admin_user)
    server = make_server()
    _ts, tps, waits = polls()
    start = datetime.now(UTC) - timedelta(seconds=10 * 61)
    samples = [Sample(server.pk, "global_status", start, None, {"Threads_running": 4}),
               Sample(server.pk, "pfs_waits", start, None, {})]
    for i in range(60):
        at, counted = start + timedelta(seconds=10 * (i + 1)), {"tps": round(10 * tps[i])}
        samples.append(Sample(server.pk, "global_status", at, 10.0, counted, frozenset(counted)))
        timed = {f"wait.time_ps:{HIDDEN}": round(10 * waits[MDL][i]), f"wait.count:{HIDDEN}": 5,
                 f"wait.time_ps:{HANDLER}": round(10 * waits[HANDLER][i]), f"wait.count:{HANDLER}": 100}
        samples.append(Sample(server.pk, "pfs_waits", at, 10.0, timed, frozenset(timed)))
    write_samples(samples)
    body = client.get(f"/servers/{server.pk}/stability/?range=1h").content.decode()
    assert "A hidden condition wait moves against TPS" in body
    assert f"<code>{HIDDEN}</code> (8.00 s waited a second in the dips against 0.40 between them)" in body
