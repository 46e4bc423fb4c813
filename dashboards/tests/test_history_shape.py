"""The history length's humps in the stability verdict: a read view held then released is no drain."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dashboards.analysis.history_shape import rising
from dashboards.analysis.run_summary import Warmup
from dashboards.analysis.run_verdict import judge
from dashboards.analysis.verdict_words import drifted, humps_said, warmup_said

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def at(i: int, step: int = 5) -> datetime:
    return T0 + timedelta(seconds=step * i)


def flat_tps(n: int) -> list[float]:
    return [1000.0 + (5 if i % 2 else -5) for i in range(n)]


def jitter(i: int) -> float:
    return 7.0 if i % 2 else -7.0


# 5 s polls: 0 for 10 polls, +1,000 a poll from poll 10 to 20,000 at poll 29 (09:02:25), 500 +- 7 from poll 30 on.
CLIFF = [0.0] * 10 + [1000.0 * (i - 9) for i in range(10, 30)] + [500 + jitter(i) for i in range(30, 60)]


@dataclass
class Held:
    thread_id: int
    started_at: datetime
    seen_at: datetime
    ended_at: datetime | None
    who: str = "root@localhost"


def test_a_read_view_released_is_a_hump_not_a_drain():
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=0, history=CLIFF)
    assert verdict.kind == "steady" and verdict.history is None and verdict.drift is None
    # The newest 0 before the peak is poll 9 (09:00:45); the peak poll 29, the bottom poll 30 (09:02:30).
    assert humps_said(verdict) == ("history length rose to 20,000 at 09:02:25 (from 09:00:45), "
                                   "then fell to 493 at 09:02:30")


def test_the_hump_is_named_after_the_read_view_that_held_it():
    # Opened between polls 9 and 10, last seen at the peak's poll, found gone by the bottom's (read 0.4 s later).
    holder = Held(22, at(9) + timedelta(seconds=2), at(29), at(30) + timedelta(milliseconds=400))
    other = Held(13, at(40), at(45), at(46), who="stress@127.0.0.1")  # after the release: not it
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=0, history=CLIFF, holders=[holder, other])
    assert humps_said(verdict) == ("history length held by a read view from 09:00:47 to 09:02:25 "
                                   "(thread 22, root@localhost; peak 20,000), released: 493 at 09:02:30")


def test_a_rise_that_drains_back_says_where_it_settled():
    # Up +1,000 a poll to 30,000 at poll 39 (09:03:15), down 2,000 a poll to 2,000 at poll 53, then 1,500,
    # 1,000, 700 and 500 +- 7: no fall below a quarter in two polls (no cliff). The lowest after the peak is
    # 493; settled at the first poll within 1 % of the fall (493 + 295.07): 700 at poll 56 (09:04:40).
    history = ([0.0] * 10 + [1000.0 * (i - 9) for i in range(10, 40)]
               + [30000.0 - 2000 * (i - 39) for i in range(40, 54)]
               + [1500.0, 1000.0, 700.0] + [500 + jitter(i) for i in range(57, 80)])
    verdict = judge([at(i) for i in range(80)], flat_tps(80), warmup=0, history=history)
    assert verdict.kind == "steady" and verdict.history is None
    assert humps_said(verdict) == ("history length rose to 30,000 at 09:03:15 (from 09:00:45), "
                                   "then drained to 700 by 09:04:40")


def test_growth_after_a_release_drifts_from_the_release_only():
    # The cliff above, then from poll 30 on +50 a poll (600 a minute at 5 s polls) for 60 polls: 3,000 more.
    history = CLIFF[:30] + [500.0 + 50 * (i - 30) for i in range(30, 90)]
    verdict = judge([at(i) for i in range(90)], flat_tps(90), warmup=0, history=history)
    assert verdict.kind == "drifting" and verdict.drift is None
    assert verdict.history is not None and abs(verdict.history.pct_per_min - 600) < 1e-6
    assert drifted(verdict).startswith("history length growing 600 / min since 09:02:30 (95 % interval ")
    assert "TPS" not in drifted(verdict)


def test_only_tps_that_drifted_is_said():
    # TPS +-5 around 1,000 (no drift) beside a history growing 40 a 5 s poll: 480 a minute.
    history = [500.0 + 40 * i + jitter(i) for i in range(60)]
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=0, history=history)
    assert verdict.kind == "drifting" and verdict.drift is None and verdict.humps == ()
    assert drifted(verdict).startswith("history length growing 480 / min (95 % interval ")


def test_the_warmup_is_said_as_the_run_gave_it_or_as_found():
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=2)  # polls 0 and 1 left out
    assert warmup_said(verdict, Warmup(0)) == "no warm-up: from the run's first poll at 09:00:10 UTC"
    assert warmup_said(verdict, Warmup(10)) == "after the warm-up (the run's own): judged from the poll at 09:00:10 UTC"
    assert warmup_said(verdict, Warmup(10, found=True)) == (
        "after the warm-up (found from the data: the run gave none): judged from the poll at 09:00:10 UTC")
    assert warmup_said(verdict, None) == "after the warm-up (found from the data): judged from the poll at 09:00:10 UTC"
    level = judge([at(i) for i in range(60)], flat_tps(60))  # a level line: no warm-up found
    assert warmup_said(level, None) == "no warm-up found: from the range's first poll at 09:00:00 UTC"


def test_many_humps_are_summed_up_in_one_clause():
    # Five times: 0 for 10 polls, +1,000 a poll to 5,000 .. 9,000 (the k-th 5,000 + 1,000 k), back to 0 in a poll.
    history: list[float] = []
    for k in range(5):
        history += [0.0] * 10 + [1000.0 * j for j in range(1, 6 + k)]
    history += [0.0] * 10
    n = len(history)  # 5 x 10 + (5 + 6 + 7 + 8 + 9) + 10 = 95
    holders = [Held(13, at(10), at(14), at(15), who="stress@127.0.0.1")]  # the first one's
    verdict = judge([at(i) for i in range(n)], flat_tps(n), warmup=0, history=history, holders=holders)
    # The first rise starts at poll 9 (09:00:45); the last falls at poll 85 (09:07:05); the highest, 9,000,
    # is the fifth's last poll: 4 x 10 + 5 + 6 + 7 + 8 + 10 + 8 = poll 84 (09:07:00).
    assert humps_said(verdict) == ("history length rose and fell back 5 times from 09:00:45 to 09:07:05, "
                                   "highest 9,000 at 09:07:00; 1 of them held by a read view "
                                   "(thread 13, stress@127.0.0.1)")


# 5 s polls: 500, 900, 700, 600, 800 repeated for 40 polls (median 700), then a read view opened at 09:03:17
# lifts poll 40 (09:03:20) to 6,665 and poll 41 (09:03:25) to 11,196: the audit's run, by hand.
FLAT_THEN_RISE = [[500.0, 900.0, 700.0, 600.0, 800.0][i % 5] for i in range(40)] + [6665.0, 11196.0]


def test_a_rise_at_the_end_is_said_as_such_and_no_drift():
    verdict = judge([at(i) for i in range(42)], flat_tps(42), warmup=0, history=FLAT_THEN_RISE)
    assert verdict.kind == "steady" and verdict.history is None and drifted(verdict) == ""
    assert humps_said(verdict) == "history length rising at the end: from ~700 to 11,196 in the last 2 polls"


def test_a_rise_at_the_end_names_the_read_view_open_at_the_last_poll():
    gone = Held(22, at(5), at(8), at(9))  # released long before: not it
    open_one = Held(13, at(39) + timedelta(seconds=2), at(41), None, who="stress@127.0.0.1")
    verdict = judge([at(i) for i in range(42)], flat_tps(42), warmup=0, history=FLAT_THEN_RISE,
                    holders=[gone, open_one])
    assert verdict.kind == "steady" and verdict.history is None
    assert humps_said(verdict) == ("history length rising at the end: from ~700 to 11,196 in the last 2 polls "
                                   "(held by a read view: thread 13, stress@127.0.0.1, open since 09:03:17)")


def test_a_last_poll_less_than_a_hump_above_the_level_is_no_rise():
    # 1,500 is 800 above the level of 700: less than a hump's rise of 1,000.
    history = FLAT_THEN_RISE[:40] + [1500.0]
    verdict = judge([at(i) for i in range(41)], flat_tps(41), warmup=0, history=history)
    assert verdict.rising is None and humps_said(verdict) == ""


def test_a_transaction_last_seen_at_the_rise_s_floor_did_not_hold_it():
    """Seen live: sysbench under FLUSH TABLES WITH READ LOCK every 40 s. A sysbench transaction blocked by the
    lock was the oldest open one for 6 s (seen 16:49:29 to 16:49:35, history 190 then 18), found gone by the
    next poll, 16:49:40, where the writes held back by the lock had raised the history to 1,520; purge drained
    it to 21 by 16:50:15. The verdict read "held by a read view from 16:49:29 to 16:49:35 (thread 18, ...; peak
    1,520)": the peak came after that transaction ended, and the history was at its floor while it was open.

    By hand, 5 s polls: 5, 400, 800, 31, 190, 18, then 1,520, 1,321, 580, 352, 946, 910, 637, 21, then flat
    ~300: a hump from the 5 (poll 0) to 1,520 (poll 6). The transaction was seen at polls 4 and 5 (190, 18),
    found gone by poll 6: the peak's poll did not see it, and the last that did found the history at 18, not
    half-way up from 5 to 1,520 (762.5), so the hump is said by its shape."""
    history = [5.0, 400.0, 800.0, 31.0, 190.0, 18.0, 1520.0, 1321.0, 580.0, 352.0, 946.0, 910.0, 637.0, 21.0] + [
        300 + jitter(i) for i in range(14, 40)]
    blocked = Held(18, at(4) - timedelta(seconds=1), at(5), at(6) + timedelta(milliseconds=20))
    verdict = judge([at(i) for i in range(40)], flat_tps(40), warmup=0, history=history, holders=[blocked])
    assert verdict.humps and not verdict.humps[0].held_by
    assert humps_said(verdict).startswith("history length rose to 1,520 at 09:00:30 (from 09:00:00)")


def test_a_read_view_released_just_before_the_peak_poll_is_still_named():
    """The peak's poll found the holder gone (released 1 s before it, purge not started yet): the last poll that
    saw it found the history at 19,000 of the rise from 0 to 20,000, more than half-way: it held the hump."""
    holder = Held(22, at(9) + timedelta(seconds=2), at(28), at(29) - timedelta(milliseconds=300))
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=0, history=CLIFF, holders=[holder])
    assert humps_said(verdict).startswith("history length held by a read view from 09:00:47 to 09:02:20 "
                                          "(thread 22, root@localhost; peak 20,000)")


# 5 s polls wandering 0 to 1,082 in a cycle of 12 (as a run "rw x8", 8 sysbench threads, read), with one-poll
# spikes to 1,151 (poll 14) and 1,198 (poll 38, between a 0 and a 52): the wander's own top, no read view held.
CYCLE = [30.0, 0.0, 24.0, 52.0, 119.0, 1082.0, 554.0, 9.0, 9.0, 48.0, 327.0, 964.0]


def wander(i: int) -> float:
    return {14: 1151.0, 38: 1198.0}.get(i, CYCLE[i % 12])


def test_one_poll_spikes_in_the_wander_are_no_hump():
    # 1,198 rose and fell over 1,000 but stands 116 above the 1,082 the polls around it reach: purge keeps up.
    history = [wander(i) for i in range(60)]
    verdict = judge([at(i) for i in range(60)], flat_tps(60), warmup=0, history=history)
    assert verdict.kind == "steady" and verdict.history is None and verdict.rising is None
    assert verdict.humps == () and humps_said(verdict) == ""


def test_a_read_view_held_in_the_wander_is_still_a_hump_and_named():
    # The wander to poll 39, then +475 a poll from 300 (poll 40) to 6,000 (poll 52, 09:04:20), 300 at poll 53
    # (09:04:25: a cliff), the wander again. The read view opened 2 s after poll 39, seen at the peak's poll.
    history = ([wander(i) for i in range(40)] + [300.0 + 475 * k for k in range(13)] + [300.0]
               + [wander(i) for i in range(54, 80)])
    holder = Held(22, at(39) + timedelta(seconds=2), at(52), at(53) + timedelta(milliseconds=400))
    verdict = judge([at(i) for i in range(80)], flat_tps(80), warmup=0, history=history, holders=[holder])
    assert humps_said(verdict) == ("history length held by a read view from 09:03:17 to 09:04:20 "
                                   "(thread 22, root@localhost; peak 6,000), released: 300 at 09:04:25")


def test_a_hump_in_the_wander_is_still_found():
    # The wander to poll 39, then +500 a poll to 5,000 (poll 49, 09:04:05), -500 a poll to 500 (poll 58), the
    # wander again. The rise began at the newest 0 before the peak, poll 37 (09:03:05); the lowest after the
    # peak is 0, so it settled at the first poll within 50 (1 % of 5,000) of it: 30 at poll 60 (09:05:00).
    history = ([wander(i) for i in range(40)] + [500.0 * (i - 39) for i in range(40, 50)]
               + [5000.0 - 500 * (i - 49) for i in range(50, 59)] + [wander(i) for i in range(59, 80)])
    verdict = judge([at(i) for i in range(80)], flat_tps(80), warmup=0, history=history)
    assert verdict.kind == "steady" and verdict.history is None
    assert humps_said(verdict) == ("history length rose to 5,000 at 09:04:05 (from 09:03:05), "
                                   "then drained to 30 by 09:05:00")


# 5 s polls wandering 0 to 990 and back in a cycle of 12, most of them low (median 250), purge keeping up: no swing
# is a hump's 1,000.
SWING = [0.0, 100.0, 300.0, 600.0, 900.0, 990.0, 800.0, 500.0, 200.0, 50.0, 0.0, 0.0]


def test_a_new_top_of_the_wander_is_no_rise_at_the_end():
    """Five swings, then 1,260: 1,010 above the median of the polls before (250: (200 + 300) / 2) and above all of
    them, so rising() called it a rise ("rising at the end: from ~250 to 1,260 in the last poll"). By hand it stands
    270 above the 990 the wander reached in the 12 polls before: a hump's peak must stand 1,000 above it. A read
    view held in the same wander (2,400, then 3,600) still is one: 2,610 above 990."""
    history = SWING * 5 + [1260.0]
    assert rising(history) == 0
    verdict = judge([at(i) for i in range(61)], flat_tps(61), warmup=0, history=history)
    assert verdict.rising is None and humps_said(verdict) == ""
    held = SWING * 5 + [2400.0, 3600.0]
    assert rising(held) == 2
    verdict = judge([at(i) for i in range(62)], flat_tps(62), warmup=0, history=held)
    assert humps_said(verdict) == "history length rising at the end: from ~250 to 3,600 in the last 2 polls"


def test_a_transaction_opened_after_the_rise_is_not_named_its_holder():
    """The audit's rise (700 to 6,665 at poll 40, 11,196 at poll 41), with a transaction opened 2 s after poll 40,
    the history already at 6,665: it rose 4,531 while that one was open, less than half the rise from ~700 to
    11,196 (5,248). A read view opened on a history that was already up held none of it: the rise is said without
    a holder. One opened 2 s after poll 39 (800) is open over all of it, as before."""
    late = Held(31, at(40) + timedelta(seconds=2), at(41), None, who="dump@10.0.0.9")
    verdict = judge([at(i) for i in range(42)], flat_tps(42), warmup=0, history=FLAT_THEN_RISE, holders=[late])
    assert humps_said(verdict) == "history length rising at the end: from ~700 to 11,196 in the last 2 polls"
    early = Held(13, at(39) + timedelta(seconds=2), at(41), None, who="stress@127.0.0.1")
    verdict = judge([at(i) for i in range(42)], flat_tps(42), warmup=0, history=FLAT_THEN_RISE, holders=[early, late])
    assert humps_said(verdict).endswith("(held by a read view: thread 13, stress@127.0.0.1, open since 09:03:17)")


# 5 s polls swinging smoothly 0 to 1,200 and back, 300 a poll, a cycle of 8: a steady load's wander, no read view.
SMOOTH = [0.0, 300.0, 600.0, 900.0, 1200.0, 900.0, 600.0, 300.0]


def test_smooth_swings_of_the_wander_are_no_humps():
    """Six swings, then 0. Each rises and falls 1,200 (over a hump's 1,000) and, by the polls outside the swings
    (none: each starts where the one before settled), stood out of an empty wander: "rose and fell back 6 times".
    By hand the line wanders 0 to 1,200 throughout: each top is 0 above the other swings' 1,200, purge keeps up."""
    history = SMOOTH * 6 + [0.0]
    verdict = judge([at(i) for i in range(49)], flat_tps(49), warmup=0, history=history)
    assert verdict.kind == "steady" and verdict.history is None and verdict.rising is None
    assert verdict.humps == () and humps_said(verdict) == ""


def test_a_hump_in_the_smooth_wander_is_the_only_one():
    """Three swings (polls 0-23), then +1,000 a poll from 0 (poll 24, 09:02:00) to 6,000 (poll 30, 09:02:30), -1,000
    a poll to 0 (poll 36, 09:03:00: the lowest after the peak, so where it settled), three swings more. 6,000 stands
    4,800 above the swings' 1,200; the swings are no humps beside it (before: "rose and fell back 4 times")."""
    history = (SMOOTH * 3 + [1000.0 * k for k in range(7)] + [6000.0 - 1000 * k for k in range(1, 7)]
               + SMOOTH * 3 + [0.0])
    verdict = judge([at(i) for i in range(len(history))], flat_tps(len(history)), warmup=0, history=history)
    assert humps_said(verdict) == ("history length rose to 6,000 at 09:02:30 (from 09:02:00), "
                                   "then drained to 0 by 09:03:00")
