"""B against A over repeated runs: the ratio of mean TPS and its 95 % interval (Fieller with Welch's variances)."""

import math
import random

import pytest

from dashboards.analysis.ab_ratio import ab_ratio, t_quantile, told

# Student's t, 97.5th percentile, from the printed tables.
T_TABLE = {1: 12.7062, 2: 4.3027, 4: 2.7764, 10: 2.2281, 30: 2.0423}


@pytest.mark.parametrize(("df", "t"), T_TABLE.items())
def test_the_t_quantile_is_the_tables(df, t):
    assert t_quantile(0.975, df) == pytest.approx(t, abs=1e-4)


def test_a_fractional_df_quantile_leaves_2_5_percent_above_it():
    # The t density integrated numerically from the quantile far into the tail: 2.5 % of it.
    df, q = 3.4845, t_quantile(0.975, 3.4845)
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    step, x, tail = 1e-3, q, 0.0
    while x < 2000:
        tail += c * (1 + (x + step / 2) ** 2 / df) ** (-(df + 1) / 2) * step
        x += step
    assert tail == pytest.approx(0.025, abs=2e-4)


def test_with_a_steady_a_the_interval_is_bs_own_t_interval_over_as_mean():
    # A's variance 0: Fieller reduces to (mean B +- t(2) * s_B / sqrt 3) / mean A, with 2 degrees of freedom.
    r = ab_ratio([100.0, 100.0, 100.0], [140.0, 150.0, 160.0])
    half = 4.302653 * 10.0 / math.sqrt(3)
    assert (r.ratio, r.df) == pytest.approx((1.5, 2.0))
    assert (r.lo, r.hi) == pytest.approx(((150 - half) / 100, (150 + half) / 100), abs=1e-6)
    assert r.sentence() == f"B is 1.50 times A (95 %: {(150 - half) / 100:.2f}-{(150 + half) / 100:.2f}, N=3, M=3)."


def test_a_constructed_ratio_is_found_and_one_is_excluded():
    a = [1000.0, 1100.0, 950.0, 1050.0]
    r = ab_ratio(a, [1.5 * x for x in a])
    assert r.ratio == pytest.approx(1.5) and r.lo < 1.5 < r.hi and r.lo > 1


def test_one_run_on_a_side_gives_no_interval():
    r = ab_ratio([1000.0], [1200.0, 1300.0])
    assert r.ratio == pytest.approx(1.25) and r.lo is None
    assert r.sentence() == "B is 1.25 times A (N=1, M=2): no interval can be given with one run in A: repeat it."


def test_a_mean_indistinguishable_from_zero_gives_no_bounded_interval():
    r = ab_ratio([1.0, 100.0, 2.0], [50.0, 60.0, 55.0])
    assert r.lo is None and "spread too widely" in r.why


def test_a_and_a_intervals_contain_one_nineteen_times_in_twenty():
    rng, hits, trials = random.Random(5), 0, 1000
    for _ in range(trials):
        a = [rng.gauss(1000, 60) for _ in range(3)]
        b = [rng.gauss(1000, 60) for _ in range(4)]
        r = ab_ratio(a, b)
        hits += r.lo <= 1 <= r.hi
    assert 0.93 <= hits / trials <= 0.97


def test_a_known_ratio_is_covered_near_nineteen_times_in_twenty_with_unequal_spreads():
    # Welch's degrees of freedom are an approximation: with 3 runs in the group 3.75 times as spread
    # it covers a little less than 95 % (93.3 % over 4,000 trials), as the literature on it says.
    rng, hits, trials = random.Random(11), 0, 1000
    for _ in range(trials):
        a = [rng.gauss(1000, 40) for _ in range(5)]
        b = [rng.gauss(1300, 150) for _ in range(3)]
        r = ab_ratio(a, b)
        hits += r.lo <= 1.3 <= r.hi
    assert 0.92 <= hits / trials <= 0.97


def test_an_interval_below_0_is_written_so_that_its_sign_reads():
    """Seen live, 2 runs a group: "B is 0.92 times A (95 %: -0.51-3.01, N=2, M=2)", which reads as -0.51 to -3.01.
    By hand, A steady at 100 (variance 0), B 10, 150, 290: mean 150, s 140, half-width t(2) x 140 / sqrt 3 =
    4.302653 x 80.829 = 347.78, so (150 - 347.78) / 100 = -1.98 to (150 + 347.78) / 100 = 4.98."""
    r = ab_ratio([100.0, 100.0, 100.0], [10.0, 150.0, 290.0])
    assert r.sentence() == "B is 1.50 times A (95 %: -1.98 to 4.98, N=3, M=3)."


def test_the_verdict_says_whether_the_runs_tell_b_from_a():
    """Seen live, two sysbench runs at --rate 100 against two more: "B is 0.98 times A (95 %: 0.95-1.00, N=2,
    M=2)", whose upper bound, 1.0036, printed as 1.00: whether 1 was inside could not be read."""
    # By hand: no spread, B 80 against A 100: -20 % exactly.
    assert told(ab_ratio([100.0, 100.0], [80.0, 80.0])) == "B is lower than A: -20.0 % (95 %: -20.0 % to -20.0 %)."
    # By hand: a = 105, va = 50 / 2 = 25, b = 105, vb = 0; Welch's df (25)^2 / (25^2 / 1) = 1, t = 12.7062;
    # Fieller: (a b -+ t sqrt(b^2 va)) / (a^2 - t^2 va) = (11025 -+ 6670.8) / 6988.8 = 0.6230 and 2.5320.
    assert told(ab_ratio([100.0, 110.0], [105.0, 105.0])) == (
        "No difference told apart: the 95 % interval holds 1 (B against A from -37.7 % to +153.2 %).")
    assert told(ab_ratio([100.0], [80.0, 80.0])) == ""  # one run in A: no interval, nothing told
