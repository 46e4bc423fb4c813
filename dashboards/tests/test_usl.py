"""The Universal Scalability Law fit: known laws recovered, points computed by hand, a recorded sweep predicted."""

import math

import pytest

from dashboards.analysis.usl import fit_usl, leave_one_out
from testing.usl_recorded import ROW_LOCK_4, ROW_LOCK_4_DIP, SEED_SET

LEVELS = [1, 2, 4, 8, 16, 32, 64]


def law(n: float, lam: float, sigma: float, kappa: float) -> float:
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


@pytest.mark.parametrize(("lam", "sigma", "kappa"), [
    (1000.0, 0.05, 0.001), (500.0, 0.3, 0.0), (800.0, 0.02, 0.0002), (100.0, 0.0, 0.0), (250.0, 1.0, 0.01)])
def test_it_recovers_a_law_from_its_own_points(lam, sigma, kappa):
    fit = fit_usl(LEVELS, [law(n, lam, sigma, kappa) for n in LEVELS])
    assert (fit.lam, fit.sigma, fit.kappa) == pytest.approx((lam, sigma, kappa), rel=1e-4, abs=1e-9)
    assert fit.r2 == pytest.approx(1.0) and fit.levels == 7


def test_the_peak_is_where_the_law_turns_down():
    fit = fit_usl(LEVELS, [law(n, 1000, 0.05, 0.001) for n in LEVELS])
    assert fit.peak == pytest.approx(math.sqrt(0.95 / 0.001), rel=1e-4)  # 30.8 clients
    assert fit.peak_tps == pytest.approx(law(math.sqrt(0.95 / 0.001), 1000, 0.05, 0.001), rel=1e-4)
    assert fit_usl(LEVELS, [law(n, 500, 0.3, 0) for n in LEVELS]).peak is None  # no crosstalk: no peak


def test_r2_is_one_minus_the_residual_share_by_hand():
    # Linear points but the last: the best law cannot pass through all four.
    levels, tps = [1, 2, 3, 4], [100.0, 200.0, 300.0, 300.0]
    fit = fit_usl(levels, tps)
    predicted = [fit.predict(n) for n in levels]
    mean = sum(tps) / 4
    by_hand = 1 - sum((t - p) ** 2 for t, p in zip(tps, predicted, strict=True)) / sum((t - mean) ** 2 for t in tps)
    assert fit.r2 == pytest.approx(by_hand) and 0.9 < fit.r2 < 1
    # and no other law of the grid does better than the fit's residual
    best = sum((t - p) ** 2 for t, p in zip(tps, predicted, strict=True))
    for sigma in (0.0, 0.01, 0.05, 0.1):
        for kappa in (0.0, 0.01, 0.03, 0.05):
            shape = [n / (1 + sigma * (n - 1) + kappa * n * (n - 1)) for n in levels]
            lam = sum(t * f for t, f in zip(tps, shape, strict=True)) / sum(f * f for f in shape)
            assert sum((t - lam * f) ** 2 for t, f in zip(tps, shape, strict=True)) >= best - 1e-6


def test_under_three_levels_there_is_no_fit():
    assert fit_usl([1, 2], [100.0, 190.0]) is None
    assert fit_usl([1, 2, 4], [100.0, None, 300.0]) is None


def test_a_recorded_sweep_left_one_level_out_predicts_it_within_15_percent():
    levels, tps = zip(*ROW_LOCK_4.items(), strict=True)
    inner = [c for c in levels[1:-1] if c != ROW_LOCK_4_DIP]  # the law interpolates; 4 was read in a dip
    for left in inner:
        predicted = leave_one_out(list(levels), list(tps), left)
        assert predicted == pytest.approx(ROW_LOCK_4[left], rel=0.15), left


def test_the_seed_articles_memcached_set_table_fits_the_law():
    levels, tps = zip(*SEED_SET.items(), strict=True)
    fit = fit_usl(list(levels), list(tps))
    assert fit.r2 > 0.95 and fit.peak is not None and 128 < fit.peak < 512  # it peaked between the two
    for left in (32, 128):  # the inner levels, each from the three others
        assert leave_one_out(list(levels), list(tps), left) == pytest.approx(SEED_SET[left], rel=0.15)


def test_with_sigma_held_at_zero_kappa_and_lambda_are_the_least_squares_optimum():
    """Best fit with sigma at its bound: kappa and lambda re-solved there, not left where the step stopped."""
    n, x = [1, 2, 4, 8], [82.9456, 147.0346, 215.8440, 189.7032]

    def rss_at(kappa: float) -> tuple[float, float]:  # sigma 0: X = lambda * N / (1 + kappa N (N - 1))
        f = [c / (1 + kappa * c * (c - 1)) for c in n]
        lam = sum(a * b for a, b in zip(x, f, strict=True)) / sum(b * b for b in f)
        return sum((a - lam * b) ** 2 for a, b in zip(x, f, strict=True)), lam

    lo, hi = 0.0, 1.0  # the residual is unimodal in kappa here: a ternary search down to 1e-12
    while hi - lo > 1e-12:
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (lo, m2) if rss_at(m1)[0] < rss_at(m2)[0] else (m1, hi)
    best_rss, best_lam = rss_at(lo)
    fit = fit_usl(n, x)
    assert round(lo, 6) == 0.043066 and round(best_lam, 2) == 81.20 and round(best_rss, 2) == 12.64
    assert fit.sigma == 0.0
    assert fit.kappa == pytest.approx(lo, rel=1e-5) and fit.lam == pytest.approx(best_lam, rel=1e-6)
    total = sum((a - sum(x) / 4) ** 2 for a in x)
    assert fit.r2 == pytest.approx(1 - best_rss / total, abs=1e-9)


def test_a_peak_beyond_the_levels_measured_is_extrapolated():
    peak = math.sqrt((1 - 0.05) / 0.001)  # 30.8 threads
    swept = [1, 2, 4, 8, 16, 32, 64]
    inside = fit_usl(swept, [law(n, 1000.0, 0.05, 0.001) for n in swept])
    short = fit_usl(swept[:5], [law(n, 1000.0, 0.05, 0.001) for n in swept[:5]])
    assert inside.peak == pytest.approx(peak, rel=1e-4) and not inside.extrapolated
    assert short.peak == pytest.approx(peak, rel=1e-4) and short.extrapolated and short.highest == 16


def test_r2_is_printed_to_three_places_not_rounded_up_to_one():
    fit = fit_usl([1, 2, 4, 8], [82.9456, 147.0346, 215.8440, 189.7032])
    assert fit.r2_text == "0.999" and f"{fit.r2:.2f}" == "1.00"
