"""Level changes with stalls in them, as polled live (MariaDB 10.11 at its defaults, 5 s polls, 23:17:35-23:23:30).

sysbench oltp_read_write at --rate 40 beside a write-only one at --rate 50 until 23:19:13, then alone, then
--rate 100 from 23:20:35; FLUSH TABLES WITH READ LOCK held 8, 12, 8 and 15 s from 23:18:10, 23:18:45, 23:20:05
and 23:21:55. Each lock left a poll or two at 0 and, after it, the held-back work done at once (201, 299, 94,
275 TPS): the page read "Periodic dips every 31 s (4 occurrences, each 12 s long)", the 40 TPS level listed as a
55 s dip.
"""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.levels import levels_of
from dashboards.analysis.run_verdict import judge
from dashboards.analysis.verdict_words import verdict_text

START = datetime(2026, 11, 27, 23, 17, 35, tzinfo=UTC)
# fmt: off
TPS = [
    59.996, 85.1064, 89.8719, 92.5593, 88.2648, 92.9814, 86.1828, 67.8976, 0, 201, 91.8184, 91.4,
    95.019, 92.7258, 73.1854, 0, 0, 298.639, 89.7076, 90.9816, 57.1371, 40.5432, 36.6513, 39.6158,
    41.9664, 36.8147, 36.3782, 41.9832, 40.016, 37.5549, 34.462, 0, 94.1695, 39.4552, 43.3913, 35.5929,
    47.4095, 98.0431, 102.477, 92.9301, 97.0388, 107.329, 93, 95.3619, 96.4, 101.339, 107.957, 93.7125,
    102.6, 104.021, 99.4608, 99.9399, 79.2, 0, 0, 41.0768, 274.71, 152.165, 151, 91.6152,
    111.892, 96.1231, 106.779, 60.2241, 73.4621, 107.387, 117.33, 110.467, 123.477, 90.9639, 106.843, 96.4649,
]
# fmt: on


def at(i: int) -> datetime:
    return START + timedelta(seconds=5 * i)


def test_stalls_and_their_catch_ups_do_not_hide_two_level_changes():
    levels = levels_of([at(i) for i in range(1, 72)], TPS[1:])  # the first poll is the warm-up the verdict cuts
    # The loads changed at 23:19:13 and 23:20:35: the first polls of the new levels, 23:19:15 (57.1, mid-change)
    # and 23:20:40.
    assert [s.at for s in levels.shifts] == [at(20), at(37)]
    # By hand: polls 1-20 less the stalls (0 at 23:18:15; 0, 0 at 23:18:50-55) and the catch-ups after them (201,
    # 299): 14 polls summing to 1,227.702, 87.693 TPS.
    assert levels.shifts[0].before == pytest.approx(1227.702 / 14)
    # Polls from 23:19:20 to 23:20:35 less the stall at 23:20:10 and its catch-up (94.2), the mid-change 57.1 left
    # out as ever: 14 polls summing to 551.8346, 39.417 TPS.
    assert levels.shifts[0].after == pytest.approx(551.8346 / 14)
    # From 23:20:40 on, less the stall at 23:22:00-05, the poll it ended in (41.1) and its catch-up (274.7, 152.2,
    # 151.0): 29 polls summing to 2,863.8384, 98.753 TPS, the --rate 100.
    assert levels.shifts[1].after == pytest.approx(2863.8384 / 29)
    assert levels.stalls == ((at(8), at(8)), (at(15), at(16)), (at(31), at(31)), (at(53), at(54)))


def test_locks_at_irregular_times_are_no_period_however_three_of_them_fall():
    verdict = judge([at(i) for i in range(72)], TPS)
    # The four locks began 35, 80 and 110 s apart: three of them (23:18:10, 23:20:05, 23:21:55) lie within 5 s of
    # a 112.5 s grid, the fourth (23:18:45, two polls at 0) between them, off it. No period: the level changes.
    assert verdict.kind == "shifted" and [s.at for s in verdict.shifts] == [at(20), at(37)]
    # By hand: 39.417 / 87.693 - 1 = -55.05 %, 98.753 / 39.417 - 1 = +150.53 %.
    words = verdict_text(verdict)
    assert words["shifted"] == "TPS from 87.7 to 39.4 at 23:19:15 (-55 %), to 98.8 at 23:20:40 (+151 %)"
    assert (
        "the polls at 23:18:15, from 23:18:50 to 23:18:55, at 23:20:10 and from 23:22:00 to 23:22:05 UTC are "
        "stalls (under a tenth of the levels on both sides), left out of the levels"
    ) in words["levels"]


def test_a_poll_at_0_of_a_load_of_a_few_transactions_a_poll_is_chance_not_a_stall():
    # 0.4 TPS across 5 s polls is 2 transactions a poll (1 at the dip threshold's rate, under 5): a poll that
    # counted none is chance, as the dips table judges it, and stays in its level.
    values = [0.4] * 12 + [0.0] + [0.4] * 12
    assert levels_of([at(i) for i in range(25)], values).stalls == ()
    # The same load at 40 TPS (100 transactions at the threshold's rate) stopped for that poll.
    assert levels_of([at(i) for i in range(25)], [100 * v for v in values]).stalls == ((at(12), at(12)),)


def test_a_lock_whose_first_poll_caught_part_of_it_is_a_stall_beside_a_catch_up():
    """Seen live (sysbench --rate 100 then 50, FTWRL held 5 s at irregular times, 2 s polls): a lock read 28.3,
    then 0, with a catch-up of 304.4 after another lock. Judged against a tenth of that 304.4, the 28.3 was a
    stall's too, and the two polls, 14.2 on average, were neither a stall nor a lone stalled poll: four of the
    five locks were named."""
    start = datetime(2026, 11, 28, 3, 1, 19, tzinfo=UTC)
    ts = [start + timedelta(seconds=2 * i) for i in range(60)]
    special = {10: 28.0, 11: 0.0, 12: 80.0, 13: 300.0, 20: 0.0, 21: 0.0, 22: 300.0}
    tps = [special.get(i, 100.0 if i < 30 else 50.0) for i in range(60)]
    levels = levels_of(ts, tps)
    assert levels.stalls == ((ts[11], ts[11]), (ts[20], ts[21]))
    # By hand: the first level less the stalls (11; 20, 21) and the catch-ups after them (80 and 300, the poll the
    # stall ended in under the level, then the burst; 300): 23 polls at 100 and the 28, 2,328 / 24 = 97.0.
    assert [(s.at, round(s.before, 1), round(s.after, 1)) for s in levels.shifts] == [(ts[30], 97.0, 50.0)]
