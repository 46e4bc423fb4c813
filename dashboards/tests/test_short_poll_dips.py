"""A poll too soon after the one before tells no dip: its interval holds too few transactions to miss.

A loaded host ran a poll 30 ms after the one before (the loop's one-second tick had slipped); of a load at 150
TPS it counted none, 4.5 expected, and the steady line read "dips". At the dip threshold (half the median, 75
TPS) 30 ms hold 2.25 transactions, under the 5 a dip needs; a whole second holds 75.
"""

from datetime import UTC, datetime, timedelta

from dashboards.analysis.run_verdict import judge
from dashboards.analysis.stability import find_dips

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
LEVEL, THRESHOLD = 150.0, 75.0


def line(zero_after: float) -> tuple[list[datetime], list[float]]:
    """41 polls a second apart at LEVEL, but the 21st: 0 TPS, `zero_after` seconds after the 20th."""
    offsets = [float(i) for i in range(20)] + [19 + zero_after] + [19 + zero_after + i for i in range(1, 21)]
    values = [LEVEL] * 20 + [0.0] + [LEVEL] * 20
    return [T0 + timedelta(seconds=s) for s in offsets], values


def test_a_zero_poll_30_ms_after_the_one_before_is_no_dip():
    ts, values = line(0.03)
    assert find_dips(ts, values, THRESHOLD) == []
    assert judge(ts, values).kind == "steady"


def test_the_same_zero_over_a_whole_second_is_a_dip():
    ts, values = line(1.0)
    dips = find_dips(ts, values, THRESHOLD)
    assert [(d.start, d.end, d.lowest) for d in dips] == [(ts[19], ts[20], 0.0)]
    assert judge(ts, values).kind == "dips"
