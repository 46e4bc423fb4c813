"""The stability verdict on constructed TPS lines whose answer is known."""

import random
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.run_verdict import judge, warmup_end

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def at(i: int, step: int = 1) -> datetime:
    return T0 + timedelta(seconds=step * i)


def noisy(n: int, level: float = 1000.0, sd: float = 20.0, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [level + rng.gauss(0, sd) for _ in range(n)]


def test_the_warmup_ends_where_the_ramp_does():
    values = [100 + 30 * i for i in range(30)] + noisy(300)  # 30 s ramp to ~1,000, then flat
    assert 27 <= warmup_end(values) <= 31


def test_a_flat_line_is_steady_with_its_cv():
    values = noisy(600)
    verdict = judge([at(i) for i in range(600)], values)
    assert verdict.kind == "steady" and verdict.cv == pytest.approx(0.02, abs=0.004)


def test_dips_every_60_s_give_period_60_and_the_occurrences():
    # 10 minutes at 1 s polls; TPS falls to ~0 for 6 s at 45 s, 105 s, ... 585 s: 10 stalls.
    values = noisy(600)
    for start in range(45, 600, 60):
        values[start:start + 6] = [3.0] * 6
    lock = [0.01 if v > 100 else 5.8 for v in values]  # a wait that piles up during the stalls
    cpu = noisy(600, 2.0, 0.1, seed=9)  # one that does not
    verdict = judge([at(i) for i in range(600)], values, {"lock": lock, "cpu": cpu})
    assert verdict.kind == "periodic" and verdict.period == 60
    assert len(verdict.dips) == 10 and verdict.dip_seconds == 6
    assert [name for name, _ in verdict.waits] == ["lock"] and verdict.waits[0][1] < -0.9


def test_a_line_falling_2_percent_a_minute_is_drifting_with_an_interval_around_it():
    # 10 minutes at 10 s polls, from 1,000 down 20 a minute: -2 % of the start a minute.
    values = [v - 20 * i / 6 for i, v in enumerate(noisy(60, sd=5))]
    verdict = judge([at(i, 10) for i in range(60)], values, warmup=0)
    mean = sum(values) / len(values)
    assert verdict.kind == "drifting"
    assert verdict.drift.low < -2000 / mean < verdict.drift.high < 0
    assert verdict.drift.pct_per_min == pytest.approx(-2000 / mean, rel=0.05)


def test_too_few_polls_give_no_verdict():
    assert judge([at(i) for i in range(5)], noisy(5)).kind == ""
