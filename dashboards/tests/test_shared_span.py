"""The seconds a source and TPS both cover, on hand-made polls: which polls count, and TPS over them."""

import pytest

from dashboards.analysis.shared_span import SourcePolls, shared_with

S = 1_000_000  # microseconds


def every_10s(polls: list[int], deltas: list[float], offset_ms: int = 0) -> SourcePolls:
    """Poll i read at 10 i s (plus the offset), covering the 10 s before it."""
    return SourcePolls.of([10 * i * S + offset_ms * 1000 for i in polls], [10.0] * len(polls), deltas)


def test_tps_missing_a_stretch_leaves_the_waits_of_those_polls_out():
    tps = every_10s([i for i in range(1, 21) if not 8 <= i <= 12], [100.0] * 15)  # no TPS delta for polls 8..12
    waits = every_10s(list(range(1, 21)), [5.0] * 20, offset_ms=2)
    shared = shared_with(waits, tps)
    assert shared.kept.tolist() == [not 8 <= i <= 12 for i in range(1, 21)]
    assert shared.seconds == 150.0
    assert shared.transactions == pytest.approx(1500.0)  # 15 polls x 100, the 2 ms of each poll shifted alike
    assert shared.runs == [(5 * S + 2000, 70 * S + 2000), (125 * S + 2000, 200 * S + 2000)]


def test_polls_read_seconds_apart_take_tps_over_the_very_seconds_of_the_wait_polls():
    tps = every_10s(list(range(1, 11)), [100.0 * i for i in range(1, 11)])
    waits = every_10s(list(range(1, 10)), [1.0] * 9, offset_ms=5000)  # (5, 15], ..., (85, 95]
    shared = shared_with(waits, tps)
    assert shared.every_poll and shared.seconds == 90.0
    # Half of poll 1's 100 and of poll 10's 1000, all of polls 2..9: 50 + 4400 + 500.
    assert shared.transactions == pytest.approx(4950.0)


def test_a_wait_poll_tps_covers_only_in_part_is_left_out():
    tps = every_10s(list(range(3, 11)), [100.0] * 8)  # TPS's first delta covers (20, 30]
    waits = every_10s(list(range(1, 11)), [1.0] * 10, offset_ms=-4000)  # (-4, 6], (6, 16], (16, 26], ..., (86, 96]
    shared = shared_with(waits, tps)
    assert shared.kept.tolist() == [False] * 3 + [True] * 7  # (16, 26] in part: TPS has 6 s of it
    assert shared.seconds == 70.0 and shared.transactions == pytest.approx(700.0)
