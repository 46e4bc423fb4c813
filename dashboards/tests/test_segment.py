"""The history trend is the slope of the current segment: the polls since the last turning point."""

import random
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.purge_growth import current_trend, growth_per_second
from dashboards.analysis.segment import current_segment, noise

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
STEP = 5  # seconds between polls


def at(i: int) -> datetime:
    return T0 + timedelta(seconds=STEP * i)


def sawtooth() -> list[float]:
    """A purge sawtooth shaped like the one reported: climbs of 200-300 undo logs a 5 s poll (jitter of
    ±30) for 20 to 45 polls, a drain to ~15 over 1 to 3 polls, some teeth resting flat at the bottom."""
    rng = random.Random(7)
    values: list[float] = []
    for tooth in range(12):
        level = 15.0
        values += [15 + rng.uniform(-3, 3) for _ in range(8 if tooth % 3 == 0 else 0)]
        step = rng.uniform(200, 300)
        for _ in range(rng.randint(20, 45)):
            level += step + rng.gauss(0, 30)
            values.append(level)
        drain = rng.randint(1, 3)
        values += [level - (level - 15) * (k + 1) / drain + rng.uniform(-3, 3) for k in range(drain)]
    return values


def moved(values: list[float], sigma: float) -> str:
    """What the last 3 polls did, by hand: up or down by more than the noise, else flat."""
    change = values[-1] - values[-3]
    return "flat" if abs(change) <= 4 * sigma else "growing" if change > 0 else "draining"


def test_it_never_states_a_direction_opposite_to_the_last_3_polls_of_a_sawtooth():
    values = sawtooth()
    ts = [at(i) for i in range(len(values))]
    opposite = {"growing": "draining", "draining": "growing"}
    stated, old_wrong = 0, 0
    for n in range(3, len(values) + 1):
        trend = current_trend(ts[:n], values[:n])
        last3 = moved(values[:n], 30)
        assert trend.direction != opposite.get(last3), (n, trend, values[n - 3:n])
        stated += trend.direction in ("growing", "draining")
        old = growth_per_second(ts[:n], values[:n], timedelta(minutes=5))
        old_wrong += old is not None and (("growing" if old > 0 else "draining") == opposite.get(last3))
    assert stated > 0.8 * len(values)  # it does say something most of the time
    assert old_wrong > 10  # the 5-minute fit this replaces failed the same check


def test_right_after_a_drain_there_is_no_trend_until_3_polls_since_the_bottom():
    climb = [15 + 250 * i for i in range(40)]  # to 9,765
    values = climb + [15.0]
    ts = [at(i) for i in range(len(values))]
    assert growth_per_second(ts, values, timedelta(minutes=5)) > 0  # the old fit: "growing" at 15
    trend = current_trend(ts, values)
    assert trend.direction == "" and trend.polls == 2 and trend.since == ts[-2]
    assert current_trend(ts + [at(41)], values + [265.0]).direction == ""  # the bottom and one poll: 2
    trend = current_trend(ts + [at(41), at(42)], values + [265.0, 515.0])
    assert trend.direction == "growing" and trend.since == at(40) and trend.polls == 3
    assert trend.per_minute == pytest.approx(250 * 60 / STEP)


def test_a_drain_then_flat_reads_flat_since_the_end_of_the_drain():
    drain = [5000 - 500 * i for i in range(10)]  # 5,000 down to 500
    flat = [500 + (3 if i % 2 else -3) for i in range(12)]
    values = drain + flat
    ts = [at(i) for i in range(len(values))]
    trend = current_trend(ts, values)
    assert trend.direction == "flat"
    assert trend.since == at(9) and trend.polls == 13  # the drain's last poll is the flat line's first


def test_a_climb_after_a_sharp_drain_is_fitted_from_the_bottom():
    values = [8000 + 200 * i for i in range(30)] + [20 + 120 * i for i in range(10)]
    ts = [at(i) for i in range(len(values))]
    trend = current_trend(ts, values)
    assert trend.since == at(30) and trend.polls == 10 and not trend.at_least
    assert trend.per_minute == pytest.approx(120 * 60 / STEP)


def test_a_noisy_straight_line_is_one_segment_with_its_own_slope():
    rng = random.Random(3)
    values = [1000 + 40 * i + rng.gauss(0, 50) for i in range(120)]
    xs = [STEP * i for i in range(120)]
    assert noise(values) == pytest.approx(50, rel=0.25)
    assert current_segment(xs, values).start == 0
    trend = current_trend([at(i) for i in range(120)], values)
    assert trend.at_least and trend.per_minute == pytest.approx(40 * 60 / STEP, rel=0.02)


def test_one_stray_poll_is_noise_not_a_turn():
    values = [100 + 10 * i for i in range(30)]
    values[10] += 5000
    xs = [STEP * i for i in range(30)]
    assert current_segment(xs, values).start == 0


def test_the_segment_stops_at_a_hole():
    values = [100 + 10 * i for i in range(10)] + [None] + [900 - 30 * i for i in range(6)]
    ts = [at(i) for i in range(len(values))]
    trend = current_trend(ts, values)
    assert trend.after_hole and trend.since == at(11) and trend.per_minute == pytest.approx(-30 * 60 / STEP)
