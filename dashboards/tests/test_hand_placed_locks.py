"""Locks a user placed by hand read as irregular stalls, as an engineer reads the chart: by the gaps between them.

Five locks at 40, 95, 130, 210 and 260 s of a steady load read "Periodic dips every 56 s (4 occurrences)": four
of them lie on a 55 s grid (40, 95, 150, 205, 260 s) that they fill 4 slots of 5, the fifth (130 s) between two.
By hand their gaps are 55, 35, 80 and 50 s: no period.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.template.loader import render_to_string

from dashboards.analysis.run_verdict import judge
from dashboards.analysis.verdict_words import verdict_text

T0 = datetime(2026, 11, 28, 6, tzinfo=UTC)


def locked(starts: list[int], polls: int = 60, step: int = 5) -> tuple[list[datetime], list[float]]:
    """`polls` polls every `step` s at 1,000 TPS +- 20 in turn; each lock, taken at a poll, leaves the two polls
    after it at 0."""
    ts = [T0 + timedelta(seconds=step * i) for i in range(polls)]
    tps = [1000.0 + (20 if i % 2 else -20) for i in range(polls)]
    for start in starts:
        tps[start // step + 1] = tps[start // step + 2] = 0.0
    return ts, tps


def test_locks_placed_by_hand_at_irregular_times_read_irregular_not_periodic():
    ts, tps = locked([40, 95, 130, 210, 260])
    v = judge(ts, tps, warmup=0)
    # Each dip starts at the poll before its first 0 (where the lock began) and ends at the first poll back up.
    assert [(d.start - T0).total_seconds() for d in v.dips] == [40, 95, 130, 210, 260]
    assert (v.kind, v.period, v.other_dips) == ("dips", None, 0)
    # By hand: the dips' 10 polls at 0; the other 50, 25 at 1,020 and 25 at 980: 1,000.0.
    assert verdict_text(v)["dips"] == "TPS averaged 0.0 in the dips' polls against 1,000.0 in the others"


def test_the_same_locks_in_1_s_polls_each_covering_a_slot_read_irregular():
    """Scaled to a fifth (1 s polls, locks of 4 s): every stall now holds a slot of the 11 s grid from the first
    two (8, 19, 30, 41, 52 s: the 26 s lock lasts to 30 s), so all five fell on it; their starts are 11, 7, 16
    and 10 s apart, two of them more than a quarter of the period off it."""
    ts = [T0 + timedelta(seconds=i) for i in range(60)]
    tps = [100.0 + (2 if i % 2 else -2) for i in range(60)]
    for start in (8, 19, 26, 42, 52):
        tps[start + 1 : start + 5] = [0.0] * 4
    v = judge(ts, tps, warmup=0)
    assert [(d.start - T0).total_seconds() for d in v.dips] == [8, 19, 26, 42, 52]
    assert (v.kind, v.period) == ("dips", None)


def test_locks_on_a_grid_with_one_occurrence_missed_stay_periodic():
    """40, 95, 150 and 260 s: 55 s apart but for the 110 s gap, twice the period (the lock at 205 s not taken)."""
    v = judge(*locked([40, 95, 150, 260]), warmup=0)
    # By hand: the least-squares slope of the starts 0, 55, 110 and 220 s against the slots 0, 1, 2 and 4:
    # 481.25 / 8.75 = 55.0.
    assert (v.kind, len(v.dips)) == ("periodic", 4) and v.period == pytest.approx(55.0)


def test_one_odd_stall_among_ten_regular_gaps_does_not_hide_the_period_and_is_said_as_a_stall():
    """11 locks every 40 s from 20 s, and one more at 235 s: of the 12 gaps, 40 s nine times, then 15 and 25 s
    around the odd one: 9 of 11 regular, at least 80 %. The odd one stopped TPS for two polls: a stall off the
    period, not "a one-poll dip (a blip, not a stall)"."""
    v = judge(*locked([*range(20, 460, 40), 235], polls=92), warmup=0)
    assert (v.kind, len(v.dips)) == ("periodic", 11) and v.period == pytest.approx(40.0)
    assert v.other_dips == 0 and [(d.start - T0).total_seconds() for d in v.off_period] == [235]
    html = render_to_string(
        "dashboards/_verdict.html", {"verdict": v, "verdict_text": verdict_text(v), "chart_id": "c"}
    )
    # By hand: 06:00:00 + 235 s; each lock from its first poll at 0 to the first poll back up, 10 s.
    said = "every 40 s (11 occurrences, each 10 s long)</strong>, and 1 stall off the period at 06:03:55 UTC,"
    assert said in html
    assert "one-poll dip" not in html
