"""Stability summary, dips, purge growth and the top waits table."""

from datetime import timedelta

import pytest

from dashboards.analysis.purge_growth import Trend, above_since, current_trend, growth_per_second, time_to_threshold
from dashboards.analysis.stability import dip_threshold, find_dips, merge_close, summarize
from dashboards.analysis.topwaits import Interval, diff_rows, human_ps, wait_rows
from testing.dashboards import T0, every


def test_it_summarizes_a_tps_line():
    s = summarize([100, 100, 100, 100, None])
    assert (s.points, s.mean, s.median, s.p5, s.p95, s.cv) == (4, 100, 100, 100, 100, 0)
    s = summarize(list(range(1, 101)))
    assert s.p5 == pytest.approx(5.95) and s.p95 == pytest.approx(95.05)
    assert s.cv == pytest.approx(0.5716, abs=1e-3)


def test_it_keeps_an_exact_mean_when_given():
    assert summarize([1, 3], mean=2.5).mean == 2.5


def test_it_finds_dips_below_a_fraction_of_the_median():
    pts = every(10, [100, 100, 30, 20, 100, 100, 10, None, 100])
    s = summarize(pts.values)
    dips = find_dips(pts.ts, pts.values, dip_threshold(s, 0.5))
    # Each rate covers the 10 s before its poll: the low ones measured (ts[1], ts[3]] and (ts[5], ts[6]],
    # and the hole's delta at ts[8] covers (ts[6], ts[8]].
    assert [(d.start, d.end, d.lowest, d.stalled) for d in dips] == [
        (pts.ts[1], pts.ts[3], 20, False), (pts.ts[5], pts.ts[8], 10, True),
    ]
    assert dips[0].seconds == 20


def test_a_stall_with_no_polls_is_a_dip():
    # The store puts a None between the last poll before a hole and the first after it.
    pts = every(10, [100, 100, None, 100, 100])
    dips = find_dips(pts.ts, pts.values, 50)
    assert [(d.start, d.end, d.lowest, d.stalled) for d in dips] == [(pts.ts[1], pts.ts[3], None, True)]
    assert merge_close(dips + find_dips(pts.ts[3:], [100, 1], 50), timedelta(seconds=10))[0].stalled


def test_a_stall_is_listed_from_the_poll_before_its_first_low_one_to_its_last_low_one():
    # The audit's FTWRL, held 10:13:26-10:13:34 under 5 s polls: the polls at :31 and :36 measured it.
    pts = every(5, [1000, 1000, 15.6, 400, 1000, 1000], start=T0.replace(hour=10, minute=13, second=21))
    dips = find_dips(pts.ts, pts.values, 500)
    assert [(f"{d.start:%H:%M:%S}", f"{d.end:%H:%M:%S}", d.seconds, d.lowest) for d in dips] == [
        ("10:13:26", "10:13:36", 10, 15.6)]


def test_a_dip_in_minute_rollups_covers_its_whole_bucket():
    # Rollup points: a bucket's min at its start, its max half-way (one point where they are equal).
    at = [T0 + timedelta(minutes=m, seconds=s) for m, s in ((0, 0), (1, 0), (2, 0), (2, 30), (3, 0))]
    dips = find_dips(at, [1000, 1000, 15.6, 1000, 1000], 500, timedelta(minutes=1))
    # The low poll is somewhere in the bucket 12:02-12:03: the dip is that bucket.
    assert [(d.start, d.end, d.lowest) for d in dips] == [(T0 + timedelta(minutes=2), T0 + timedelta(minutes=3), 15.6)]


def test_a_hole_in_minute_rollups_is_the_buckets_without_polls():
    at = [T0, T0 + timedelta(minutes=1), T0 + timedelta(minutes=2, seconds=10), T0 + timedelta(minutes=4)]
    dips = find_dips(at, [1000, 1000, None, 1000], 500, timedelta(minutes=1))
    # Buckets 12:00 and 12:01 had polls, 12:02 and 12:03 none, 12:04 again.
    assert [(d.start, d.end, d.stalled) for d in dips] == [(T0 + timedelta(minutes=2), T0 + timedelta(minutes=4), True)]


def test_a_dip_on_the_first_point_starts_there():
    pts = every(10, [1, 1, 100])
    assert [(d.start, d.end) for d in find_dips(pts.ts, pts.values, 50)] == [(pts.ts[0], pts.ts[1])]


def test_a_dip_open_at_the_end_is_listed():
    pts = every(10, [100, 100, 1, 1])
    assert [(d.start, d.end) for d in find_dips(pts.ts, pts.values, 50)] == [(pts.ts[1], pts.ts[3])]


def test_close_dips_merge():
    pts = every(10, [100, 1, 100, 1, 100])
    dips = merge_close(find_dips(pts.ts, pts.values, 50), timedelta(seconds=10))
    assert len(dips) == 1 and dips[0].start == pts.ts[0] and dips[0].end == pts.ts[3]


def test_history_growth_and_time_to_threshold():
    pts = every(60, [1000 + 120 * i for i in range(30)])
    slope = growth_per_second(pts.ts, pts.values, timedelta(minutes=15))
    assert slope == pytest.approx(2.0)
    trend = current_trend(pts.ts, pts.values)
    assert trend.direction == "growing" and trend.window == timedelta(minutes=29) and trend.at_least
    assert time_to_threshold(pts.values[-1], trend, 10480) == timedelta(seconds=3000)
    assert time_to_threshold(20000, trend, 10000) is None  # above it: "above since", no projection
    assert time_to_threshold(100, Trend(-1.0, timedelta(minutes=5)), 10000) is None


def test_after_the_read_view_closes_the_trend_drains_and_nothing_is_projected():
    # 25 minutes of growth to 160,000, then purge catches up: 124 left, as in the issue.
    grow = [10_000 + 6_000 * i for i in range(26)]
    pts = every(60, grow + [80_000, 20_000, 5_000, 124])
    assert growth_per_second(pts.ts, pts.values, timedelta(minutes=30)) > 0  # the old 30-min slope: "growing"
    trend = current_trend(pts.ts, pts.values)
    assert trend.direction in ("", "draining") and time_to_threshold(124, trend, 20_000) is None
    # 160,000 to 20,000 in two polls is a cliff (a step, segment.last_cliff): never fitted across the peak.
    assert trend.since > pts.ts[25]
    assert above_since(pts.ts, pts.values, 20_000) is None
    assert above_since(pts.ts[:26], pts.values[:26], 100_000) == pts.ts[15]  # 100,000 first reached at minute 15


def test_top_waits_are_ranked_with_shares_in_exact_integers():
    big = 2**70  # beyond 64 bits, as SUM_TIMER_WAIT deltas can be
    totals = {"wait.time_ps:a": big, "wait.count:a": 4, "wait.time_ps:b": big // 3,
              "wait.count:b": 0, "wait.time_ps:idle_zero": 0, "tps": 5}
    rows = wait_rows(totals)
    assert [r.event for r in rows] == ["a", "b"]
    assert rows[0].time_ps == big and rows[0].avg_ps == big / 4
    assert rows[0].share == pytest.approx(0.75) and rows[1].avg_ps is None


def test_two_intervals_side_by_side():
    a = wait_rows({"wait.time_ps:x": 100, "wait.time_ps:y": 50})
    b = wait_rows({"wait.time_ps:x": 300, "wait.time_ps:z": 10})
    diffs = diff_rows(a, b)
    assert [d.event for d in diffs] == ["x", "y", "z"]
    assert diffs[0].rate_diff == 200 and diffs[0].ratio == 3
    assert diffs[1].b is None and diffs[1].rate_diff == -50 and diffs[2].ratio is None


def test_intervals_of_different_lengths_compare_rates_and_cost_per_transaction():
    # A: 3 minutes, 90 s waited, 18,000 transactions. B: 1 minute, 135 s waited, 9,000 transactions.
    a, b = wait_rows({"wait.time_ps:x": 90 * 10**12}), wait_rows({"wait.time_ps:x": 135 * 10**12})
    d = diff_rows(a, b, None, Interval(180, 18_000), Interval(60, 9_000))[0]
    assert d.a_rate == 0.5e12 and d.b_rate == 2.25e12 and d.ratio == pytest.approx(4.5)  # totals: x1.5
    assert d.a_per_trx == 5e9 and d.b_per_trx == 15e9 and d.per_trx_ratio == pytest.approx(3)


def test_human_ps():
    assert human_ps(1.5e12) == "1.50 s" and human_ps(2500) == "2.50 ns" and human_ps(None) == ""
    assert human_ps(0) == "0" and human_ps(0.0) == "0" and human_ps(999) == "999 ps"


def test_lines_are_chosen_by_their_total_over_the_range():
    from dashboards.reads import biggest

    # b waited 1.6 s/s over the second half only (0.8 over the range): a's 1.2 throughout is bigger
    totals = {"wait.time_ps:a": 12 * 10**13, "wait.time_ps:b": 8 * 10**13, "wait.time_ps:zero": 0,
              "mutex.waits:m": 99}
    assert biggest(totals, "wait.time_ps:", 5) == ["wait.time_ps:a", "wait.time_ps:b"]
    assert biggest(totals, "wait.time_ps:", 1) == ["wait.time_ps:a"]


def test_the_fleet_top_wait_is_the_biggest_rate_at_the_last_poll():
    from dashboards.reads import top_wait_of

    latest = {(1, "wait.time_ps:a"): (None, 3e12), (1, "wait.time_ps:b"): (None, 1e12), (1, "tps"): (None, 9e12),
              (2, "wait.time_ps:c"): (None, 5e12)}
    top = top_wait_of(latest, 1)
    assert (top.event, top.per_second, top.share) == ("a", 3.0, 0.75)
    assert top_wait_of(latest, 3) is None


def test_two_stalls_either_side_of_a_good_poll_stay_two_dips():
    # 100 TPS, a missed poll (a hole), one good poll at 100, a reset (another hole), then 100 again
    pts = every(10, [100, 100, None, 100, None, 100, 100])
    dips = merge_close(find_dips(pts.ts, pts.values, 50), timedelta(seconds=0.33))
    assert [(d.start, d.end, d.stalled) for d in dips] == [(pts.ts[1], pts.ts[3], True), (pts.ts[3], pts.ts[5], True)]
