"""The levels' windowed medians and their stall tests against plain per-window references written out by hand: the
numpy forms (each start once, the windows partitioned in place, the lone stalls judged as arrays, passing()'s
fits kept for most_passing()'s coarser segmentations) give the same answers as one window at a time."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from dashboards.analysis import levels
from dashboards.analysis.levels import (
    catch_ups,
    lone_stalls,
    median_of,
    most_passing,
    passing,
    short_stalls,
    step_fit,
    window_medians,
)
from dashboards.analysis.segment import MAD_TO_SIGMA
from dashboards.analysis.stability import DEFAULT_DIP_FRACTION, MIN_DIP_COUNT


def median_of_list(polls: list[float]) -> float:
    """A median by sorting, as by hand: the middle poll, or the mean of the middle two; NaN where one is NaN."""
    if any(p != p for p in polls):
        return float("nan")
    s = sorted(polls)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def reference_medians(y: np.ndarray, lo: list[int], width: int) -> list[float | None]:
    polls = y.tolist()
    out: list[float | None] = []
    for start in lo:
        window = polls[max(start, 0):max(min(start + width, len(polls)), 0)]
        out.append(median_of_list(window) if window else None)
    return out


def reference_lone(y: np.ndarray, x: np.ndarray, side: int) -> np.ndarray:
    polls, top = y.tolist(), max(y.tolist())
    out = np.zeros(len(polls), bool)
    for i in range(1, len(polls) - 1):
        if not polls[i] < levels.STALL_SHARE * top:
            continue
        around = min(median_of_list(polls[max(i - side, 0):i]), median_of_list(polls[i + 1:i + 1 + side]))
        bound = levels.STALL_SHARE * around
        expected = DEFAULT_DIP_FRACTION * around * float(x[i] - x[i - 1])
        out[i] = polls[i] < bound <= min(polls[i - 1], polls[i + 1]) and expected >= MIN_DIP_COUNT
    return out


def reference_short(y: np.ndarray, side: int) -> np.ndarray:
    polls, n = y.tolist(), len(y)
    low = [p < levels.STALL_SHARE * max(polls) for p in polls]
    out = np.zeros(n, bool)
    i = 0
    while i < n:
        if not low[i]:
            i += 1
            continue
        j = i
        while j < n and low[j]:
            j += 1
        longest = levels.SHIFT_SIDE if i == 0 or j == n else side
        if 2 <= j - i < longest:
            sides = [polls[max(i - side, 0):i], polls[j:j + side]]
            around = min(median_of_list(s) for s in sides if s)
            if float(np.mean(polls[i:j])) < levels.STALL_SHARE * around:
                out[i:j] = True
        i = j
    return out


def reference_passing(x: np.ndarray, y: np.ndarray, splits: list[int]) -> list[int]:
    splits = list(splits)
    while splits:
        bounds = [0, *splits, len(y)]
        fits = [step_fit(x[lo:hi], y[lo:hi], at - lo)
                for lo, at, hi in zip(bounds, bounds[1:], bounds[2:], strict=False)]
        worst = fits.index(max(fits))
        if fits[worst] <= levels.SHIFT_FIT:
            break
        del splits[worst]
    return splits


def same(found: np.ndarray, expected: list[float | None]) -> bool:
    return len(found) == len(expected) and all(
        (e is None and np.isnan(f)) or (e is not None and ((np.isnan(e) and np.isnan(f)) or f == e))
        for f, e in zip(found.tolist(), expected, strict=True))


def stalled_line(rng: np.random.Generator, n: int) -> np.ndarray:
    """Noisy TPS, rounded so polls tie, with stalls of 1 to 11 polls, dips and steps."""
    y = np.round(rng.gamma(20, 1 / 20, n) * float(rng.choice([100, 1000])), int(rng.integers(-1, 2)))
    for _ in range(int(rng.integers(0, 8))):
        at = int(rng.integers(0, n))
        y[at:at + int(rng.integers(1, 12))] *= float(rng.choice([0, 0.02, 0.5, 2]))
    return y


@pytest.mark.parametrize("width", [1, 2, 5, 6, 11])
def test_window_medians_match_sorting_each_window(width):
    rng = np.random.default_rng(width)
    for n in [0, 1, 2, 3, 7, 12, 40]:
        y = np.round(rng.normal(50, 20, n))  # ties
        lo = rng.integers(-width - 2, n + 2, 30).tolist() + [0, n - width, -width, n]
        assert same(window_medians(y, np.array(lo, dtype=np.int64), width), reference_medians(y, lo, width))


def test_window_medians_say_nan_for_a_window_holding_one():
    y = np.array([1.0, 9.0, np.nan, 4.0, 2.0, 8.0, 3.0])
    lo = [-3, 0, 1, 2, 3, 4, 5, 6, 7]
    found = window_medians(y, np.array(lo), 3)
    assert same(found, reference_medians(y, lo, 3))
    assert found[[4, 5]].tolist() == [4.0, 3.0]  # [4, 2, 8] and [2, 8, 3]
    assert np.isnan(found[[2, 3]]).all() and np.isnan(found[-1])


def test_window_medians_of_even_windows_are_the_mean_of_the_middle_two():
    y = np.array([10.0, 0.0, 7.0, 3.0, 3.0, 100.0])
    # 0 3 | 7 10, 0 3 | 3 7, 3 3 | 7 100, and the last two polls alone: 3 | 100
    assert window_medians(y, np.array([0, 1, 2, 4]), 4).tolist() == [5.0, 3.0, 5.0, 51.5]


def test_lone_and_short_stalls_match_one_window_at_a_time():
    rng = np.random.default_rng(11)
    for n in [3, 5, 10, 24, 80, 300]:
        for _ in range(40):
            y = stalled_line(rng, n)
            x = np.cumsum(rng.choice([5.0, 10.0, 60.0], n))
            side = max(levels.SHIFT_SIDE, n // 10)
            if not y.max():
                continue
            assert lone_stalls(y, x, side).tolist() == reference_lone(y, x, side).tolist()
            assert short_stalls(y, side).tolist() == reference_short(y, side).tolist()


def test_median_of_matches_sorting_by_hand():
    rng = np.random.default_rng(2)
    for n in [1, 2, 3, 4, 9, 10, 51]:
        for _ in range(30):
            polls = np.round(rng.normal(50, 30, n))
            assert median_of(polls) == median_of(polls.copy()) == median_of_list(polls.tolist())
    assert np.isnan(median_of(np.array([1.0, np.nan, 3.0])))
    assert median_of(np.array([4.0, 1.0, 3.0, 100.0])) == 3.5


def reference_catch_ups(y: np.ndarray, stalled: np.ndarray, side: int) -> np.ndarray:
    """catch_ups() with each median sorted by hand."""
    polls, n = y.tolist(), len(y)
    out = np.zeros(n, bool)
    i = 0
    while i < n:
        if not stalled[i]:
            i += 1
            continue
        lo = i
        while i < n and stalled[i]:
            i += 1
        hi = i
        before = [polls[k] for k in range(max(lo - side, 0), lo) if not stalled[k]]
        if len(before) < 2:
            continue
        median = median_of_list(before)
        spread = max(MAD_TO_SIGMA * median_of_list([abs(p - median) for p in before]), levels.LEVEL_FLOOR * median)
        tail = hi + int(hi < n and not stalled[hi] and polls[hi] < median)
        end = tail
        while end < n and not stalled[end] and polls[end] > median + levels.CATCH_UP_SIGMAS * spread:
            end += 1
        if tail < end < n and end - tail < levels.SHIFT_SIDE:
            out[hi:end] = True
    return out


def test_catch_ups_match_medians_sorted_by_hand():
    rng = np.random.default_rng(4)
    for n in [6, 30, 120]:
        for _ in range(40):
            y = stalled_line(rng, n)
            for at in rng.integers(0, n, 4).tolist():  # a catch-up after some stalls
                y[at:at + 2] = 0
                y[at + 2:at + 4] *= 3
            stalled = short_stalls(y, max(levels.SHIFT_SIDE, n // 10)) | (y == 0)
            side = max(levels.SHIFT_SIDE, n // 10)
            assert catch_ups(y, stalled, side).tolist() == reference_catch_ups(y, stalled, side).tolist()


def test_a_lone_stall_amid_ties():
    y = np.array([100.0] * 6 + [0.0] + [100.0] * 6)
    x = np.arange(13) * 10.0
    assert np.flatnonzero(lone_stalls(y, x, 5)).tolist() == [6]  # 0 < 10 (a tenth of 100) <= both neighbours


def test_passing_with_the_fits_kept_drops_what_judging_afresh_drops():
    rng = np.random.default_rng(5)
    for n in [20, 40, 90, 200]:
        for _ in range(25):
            y = stalled_line(rng, n)
            y[int(rng.integers(5, n - 5)):] *= float(rng.choice([0.3, 1.0, 1.2, 3.0]))
            x = np.cumsum(np.full(n, 10.0))
            order = levels.segmented_order(y, max(levels.SHIFT_SIDE, n // 10))
            kept = {}
            for k in range(len(order), 0, -1):
                assert passing(x, y, sorted(order[:k]), kept) == reference_passing(x, y, sorted(order[:k]))
            best = reference_passing(x, y, sorted(order))
            for k in range(len(order) - 1, len(best), -1):
                coarser = reference_passing(x, y, sorted(order[:k]))
                best = coarser if len(coarser) > len(best) else best
            assert most_passing(x, y, order) == best


def test_levels_of_a_stalled_step():
    """100 TPS for 30 polls, 0 for 3, 100 for 20 more, then 300 for 30: one change, the three 0s a stall."""
    t0 = datetime(2026, 11, 28, tzinfo=UTC)
    y = [100.0] * 30 + [0.0] * 3 + [100.0] * 20 + [300.0] * 30
    ts = [t0 + timedelta(seconds=10 * i) for i in range(len(y))]
    found = levels.levels_of(ts, y)
    assert [(s.at, s.before, s.after) for s in found.shifts] == [(ts[53], 100.0, 300.0)]
    assert found.stalls == ((ts[30], ts[32]),)
