"""A load cut by a heavy writer reads as a level change, not a drift (testing/level_change_heavy_writer.py).

Binary segmentation split the range into its 5 levels at polls 6, 11, 16 and 45: two of them inside the 6 polls
where the loads changed (1,134, then 423-611 for 4 polls, too few for a level, then 339 and 325). Each change
then failed against its neighbours, mixed levels of a ramp, and once all were dropped the page read "Drifting:
TPS -35.25 %/min" where TPS had fallen by four fifths within 15 s and stayed there.
"""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.run_verdict import judge
from testing import level_change_heavy_writer as recorded

START = datetime(2026, 11, 27, 19, 54, 3, 931010, tzinfo=UTC)


def test_a_load_cut_by_a_heavy_writer_is_a_level_change():
    ts = [START + timedelta(seconds=s) for s in recorded.OFFSETS_S]
    verdict = judge(ts, list(recorded.TPS), warmup=0)
    assert verdict.kind == "shifted"
    first = verdict.shifts[0]
    # The writer began between poll 10 (603.8 TPS, 19:54:53.93) and poll 11 (338.6, 19:54:58.94).
    assert first.at == ts[11]
    # By hand: polls 0-10 sum to 8,092.1 (735.6 TPS); poll 11, a quarter of the way to the old level and over
    # 3 deviations off the new one's median, caught the change mid-poll and counts in neither mean.
    # Polls 12-58 sum to 7,857.7 (167.2 TPS): the 163-333 of the last 14 are no change of their own (the split
    # before them leaves over half a line's squares).
    assert first.before == pytest.approx(sum(recorded.TPS[:11]) / 11)
    assert first.after == pytest.approx(sum(recorded.TPS[12:]) / 47)
