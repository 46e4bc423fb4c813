"""The history trend is the slope of the current segment: the polls since the last turning point."""

import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from dashboards.analysis.purge_growth import current_trend, growth_per_second, time_to_threshold
from dashboards.analysis.purge_verdict import purge_verdict
from dashboards.analysis.segment import current_segment, last_cliff, noise
from testing.purge_drain import LATE_START, THRESHOLD
from testing.purge_release import RELEASE, TO_ZERO

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
    trend = current_trend(ts, values)  # 9,765 to 15 in a poll is a cliff: the trend starts at its bottom
    assert trend.direction == "" and trend.polls == 1 and trend.since == ts[-1]
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


HELD = [190_000 + 1_000 * i for i in range(10)]  # a read view held: 190,000 to 199,000, a straight line


def test_a_cliff_then_flat_reads_flat_since_its_bottom():
    """199,000 to 3,000 in a poll: 3,000 is below a quarter of 199,000 and of 198,000; all else is a line (sigma 1)."""
    values = HELD + [3_000] * 9
    assert last_cliff(values)[0] == 10
    trend = current_trend([at(i) for i in range(len(values))], values)
    assert trend.direction == "flat" and trend.since == at(10) and trend.polls == 9
    assert purge_verdict(3_000, trend, 20_000, None).kind == "flat"


def test_a_cliff_then_a_slower_drain_is_that_drain_at_its_own_pace():
    """After the cliff, 5,000 down 50 a 5 s poll: 600 / min. At 4,450: below 2,000 in 2,450 / 10 = 245 s,
    empty in 4,450 / 10 = 445 s. The walk alone fitted the cliff in: draining 77,328 / min."""
    values = HELD + [5_000 - 50 * j for j in range(12)]
    trend = current_trend([at(i) for i in range(len(values))], values)
    assert trend.direction == "draining" and trend.since == at(10) and trend.polls == 12
    assert trend.per_minute == pytest.approx(-600)
    verdict = purge_verdict(values[-1], trend, 2_000, None)
    assert verdict.to_threshold == timedelta(seconds=245) and verdict.to_empty == timedelta(seconds=445)


def test_a_steady_drain_keeps_its_slope_from_its_peak():
    """Purge starting two polls after the read view closed: 3,000 three times, then down 100 a poll to 2,200.
    From the last 3,000 it is one line of -100 / 5 s = -1,200 / min; at 2,200 below 750 in 1,450 / 20 = 72.5 s."""
    values = [3_000] * 3 + [2_900 - 100 * j for j in range(8)]
    trend = current_trend([at(i) for i in range(len(values))], values)
    assert trend.direction == "draining" and trend.since == at(2) and trend.polls == 9
    assert trend.per_minute == pytest.approx(-1_200)
    assert purge_verdict(2_200, trend, 750, None).to_threshold == timedelta(seconds=72.5)
    straight = [3_000 - 100 * i for i in range(28)]  # to 300: a few percent of the level a poll, no cliff
    assert last_cliff(straight)[0] == 0 and current_trend([at(i) for i in range(28)], straight).since == at(0)


def test_a_recorded_drain_that_started_late_is_fitted_after_its_level_polls_and_predicts_its_time():
    """The first "draining" over 5 polls, as the live test takes it. Fitted from the first poll, the three
    level polls of 3,001 halved the pace: at 1.47 s "below 750 in 25.0 s", where it took 6.4 s."""
    ts = [T0 + timedelta(seconds=s) for s, _ in LATE_START]
    ys = [v for _, v in LATE_START]
    n, trend = next((n, t) for n in range(3, len(ys)) if (t := current_trend(ts[:n], ys[:n])).direction == "draining"
                    and t.polls >= 5)
    first = ts.index(trend.since)
    assert first >= 2 and trend.polls == n - first  # from the last 3,001 on
    pace = -np.polyfit([s for s, _ in LATE_START[first:n]], ys[first:n], 1)[0]
    assert trend.per_second == pytest.approx(-pace)
    predicted, taken = (ys[n - 1] - THRESHOLD) / pace, LATE_START[-1][0] - LATE_START[n - 1][0]
    assert abs(predicted - taken) <= 0.3 * taken, (predicted, taken)


def test_a_noisy_drain_is_one_segment_and_idle_jitter_no_cliff():
    rng = random.Random(11)
    values = [6_000 - 100 * i + rng.gauss(0, 30) for i in range(40)]
    trend = current_trend([at(i) for i in range(40)], values)
    assert last_cliff(values)[0] == 0 and trend.since <= at(3)  # its peak is one of its first polls
    assert trend.per_minute == pytest.approx(-1_200, rel=0.05) and trend.noise == pytest.approx(30, rel=0.25)
    rng = random.Random(2)
    idle = [rng.uniform(0, 10) for _ in range(200)]  # a fall of at most 10 against 4 sigma of about 11.5
    assert last_cliff(idle)[0] == 0


def test_after_the_recorded_release_the_trend_is_flat_at_its_level():
    """Never back to 90,047 (never 71,957 / min). At the last poll by hand, the 8 polls from 464, 5 s apart:
    mean 356.875, sum (x - 3.5) y = -880.5 over 42: -20.96 a poll, -251.6 / min; noise from their second
    differences, -60 -12 45 130 -77 -80: median -36, MAD 42.5, 1.4826 x 42.5 / sqrt(6) = 25.7. Flat: the
    line moved 20.96 x 7 = 146.75 end to end, inside 4 x the polls' scatter around it (residuals 33.75,
    42.71, -8.32, -71.36, -89.39, 22.57, 57.54, 12.5: sum of squares 20,091.8 / 6 = 57.87^2)."""
    for n in range(3, len(RELEASE) + 1):
        trend = current_trend([at(i) for i in range(n)], RELEASE[:n])
        assert trend.since >= at(2) and (trend.per_minute is None or abs(trend.per_minute) < 1_000), (n, trend)
    trend = current_trend([at(i) for i in range(len(RELEASE))], RELEASE)
    assert trend.since == at(2) and trend.polls == 8
    assert trend.per_minute == pytest.approx(-880.5 / 42 * 60 / STEP)
    assert trend.noise == pytest.approx(1.4826 * 42.5 / 6 ** 0.5)
    assert trend.scatter == pytest.approx((20_091.82 / 6) ** 0.5, rel=1e-5)
    assert trend.direction == "flat" and purge_verdict(296, trend, 20_000, None).kind == "flat"


def test_at_a_handful_or_less_after_the_release_it_is_never_draining_nor_empty_in_0_s():
    values = RELEASE + TO_ZERO
    for n in range(len(RELEASE) + 1, len(values) + 1):
        trend = current_trend([at(i) for i in range(n)], values[:n])
        verdict = purge_verdict(values[n - 1], trend, 20_000, None)
        assert trend.since >= at(2), n  # never across the release
        # A turn's first polls say the fall itself ("turned"): no pace yet, so never draining nor empty in 0 s.
        assert verdict.kind in ("", "flat", "nearly-empty", "turned"), (n, trend, verdict)
    assert trend.direction == "flat" and trend.since == at(len(RELEASE) + 4)  # at 0 since the first 0


def test_one_late_poll_does_not_restart_the_trend():
    # History growing 10 undo logs a second, polled every 2 s from 0 to 78 s; the next poll comes at 84 s (6 s
    # after, a hole to the store: over 1.5 intervals), then every 2 s to 102 s. By hand: one straight line of
    # 40 + 10 = 50 polls from 0 s, 600 a minute. Before, the trend restarted at 84 s (after_hole, 10 polls).
    secs = [2 * i for i in range(40)] + [84 + 2 * i for i in range(10)]
    ts = [T0 + timedelta(seconds=s) for s in secs]
    values: list[float | None] = [1000.0 + 10 * s for s in secs]
    ts.insert(40, T0 + timedelta(seconds=81))  # the store's None between the polls around the hole
    values.insert(40, None)
    trend = current_trend(ts, values)
    assert trend.since == T0 and trend.polls == 50 and trend.per_minute == pytest.approx(600)
    assert trend.at_least and not trend.after_hole and trend.direction == "growing"
    # Polls 18 s apart (9 intervals) are an outage: the trend restarts after it.
    ts[41:], values[41:] = [T0 + timedelta(seconds=78 + 18 + 2 * i) for i in range(10)], [
        1000.0 + 10 * (96 + 2 * i) for i in range(10)]
    trend = current_trend(ts, values)
    assert trend.after_hole and trend.since == T0 + timedelta(seconds=96) and trend.polls == 10


# Audit 3 (2026-11-27): a read view held under 100 updates a second, 5 s polls. A fixed sequence of how far
# each poll lies off a climb of 500 a poll: a count drifting poll to poll, ± 27 around its least-squares
# line (sum of squared residuals 9,455 over 13), where the second differences give a noise of 12.7.
DRIFT = [-28, -27, 3, 4, -19, -46, -78, -16, -6, -11, -77, -93, -58, -43, -64]
DRIFTING = [10_000 + 500 * i + r for i, r in enumerate(DRIFT)]


def test_a_climb_drifting_poll_to_poll_is_one_segment_from_its_first_poll():
    """By hand over all 15 polls (x = 5 i, mean 35, sum (x - 35)^2 = 7,000): sum (i - 7) r_i = -1,073, a slope
    of 100 - 1,073 x 5 / 7,000 = 99.2336 / s, 5,954.0 / min. Noise: second differences 29 -29 -24 -4 -5 94
    -52 -15 -61 50 51 -20 -36, median -15, MAD 21, 1.4826 x 21 / sqrt(6) = 12.71. Before, the walk cut it
    after poll 9, as the page did: growing 6,091.2 / min (507.6 a poll over polls 10-14) from poll 10."""
    xs = [STEP * i for i in range(15)]
    assert noise(DRIFTING) == pytest.approx(1.4826 * 21 / 6 ** 0.5)
    assert current_segment(xs, DRIFTING).start == 0
    trend = current_trend([at(i) for i in range(15)], DRIFTING)
    assert trend.since == at(0) and trend.polls == 15 and trend.at_least and trend.direction == "growing"
    assert trend.per_minute == pytest.approx((100 - 1_073 * 5 / 7_000) * 60)


@pytest.mark.parametrize("step", [1_000, -500, 0])
def test_after_a_drifting_climb_a_turn_starts_the_segment_at_once(step):
    """The drifting climb, then a rate that doubles, a drain or a stop: the segment starts at the turn
    (its last poll, 16,936) from the first poll after it on."""
    for k in range(1, 5):
        ys = DRIFTING + [DRIFTING[-1] + step * j for j in range(1, k + 1)]
        assert current_segment([STEP * i for i in range(len(ys))], ys).start == 14, k


def test_a_climb_alternating_27_either_side_of_its_line_is_one_segment():
    """100 a second at 5 s polls, each poll 27 below then 27 above the line in turn, 15 polls. By hand: the
    second differences are all +-108, so their MAD is 0 and the noise its floor, 1; the polls stray 27
    (sum of squares 15 x 27^2 less 15 x 1.8^2 for their mean, over 13: 28.94). Slope: sum (i - 7) r_i =
    27 x ((-6 - 4 - 2 + 0 + 2 + 4 + 6) - (-7 - 5 - 3 - 1 + 1 + 3 + 5 + 7)) = 0, so exactly 6,000 / min.
    Before: cut after poll 3, 11 polls."""
    ys = [10_000 + 500 * i + (27 if i % 2 else -27) for i in range(15)]
    xs = [STEP * i for i in range(15)]
    assert noise(ys) == 1.0
    assert current_segment(xs, ys).start == 0
    trend = current_trend([at(i) for i in range(15)], ys)
    assert trend.since == at(0) and trend.polls == 15 and trend.per_minute == pytest.approx(6_000)
    assert trend.scatter == pytest.approx((15 * (27 ** 2 - 1.8 ** 2) / 13) ** 0.5)


# Audit 4 (2026-11-27): a read view opened after 8 polls at ~0, the history then climbing ~30,000 / min, each
# poll 15 % under then 15 % over 2,500 a poll in turn (the first one a fifth of a poll into the climb).
AT_ZERO = [0.0, 2, 0, 1, 0, 0, 3, 0]
JUMPY = [2_500 * (j + 0.2) * (0.85 if j % 2 == 0 else 1.15) for j in range(12)]  # 425, 3,450, 4,675, 9,200, ...


@pytest.mark.parametrize("climbed", [8, 9, 10, 11, 12])
def test_a_flat_run_before_a_jumpy_climb_stays_out_of_it(climbed):
    """The segment starts at the climb's first poll (425), however far its polls stray. Expected: numpy's
    least-squares slope of the climbing polls alone (9 polls: 28,500 / min, to 1,000,000 from 17,425 in 34.5
    min). Before, the zeros fitted inside the band the climb's scatter drew: all 17 polls, 15,123 / min."""
    ys = AT_ZERO + JUMPY[:climbed]
    ts = [at(i) for i in range(len(ys))]
    trend = current_trend(ts, ys)
    slope = np.polyfit([STEP * j for j in range(climbed)], JUMPY[:climbed], 1)[0] * 60
    assert trend.since == at(8) and trend.polls == climbed and trend.direction == "growing"
    assert trend.per_minute == pytest.approx(slope)
    reach = time_to_threshold(ys[-1], trend, 1_000_000)
    assert reach is not None and reach.total_seconds() == pytest.approx((1_000_000 - ys[-1]) / slope * 60)


@pytest.mark.parametrize("climbed", [4, 5, 6, 7])
def test_a_short_jumpy_climb_after_a_flat_run_is_fitted_from_its_first_poll(climbed):
    """4 to 7 polls of the climb above: too few for their own noise, they were walked with the zeros' (4.2)
    and their jitter read as turns (the newest 2 polls: "too few polls"). Expected: numpy's least-squares
    slope of the climbing polls alone, since the first (425), the zeros left out."""
    ys = AT_ZERO + JUMPY[:climbed]
    trend = current_trend([at(i) for i in range(len(ys))], ys)
    slope = np.polyfit([STEP * j for j in range(climbed)], JUMPY[:climbed], 1)[0] * 60
    assert trend.since == at(len(AT_ZERO)) and trend.polls == climbed and trend.direction == "growing"
    assert trend.per_minute == pytest.approx(slope)


def test_a_short_climb_that_changed_rate_starts_at_the_change():
    """8 polls at ~0, 3 polls up 1,000 each, then 3 up 4,000 each (±30 in turn): a kink, no jitter. Expected:
    from the poll where the rate changed (3,000), numpy's slope of the 4 polls from it, about 48,000 / min."""
    climb = [1_000.0, 2_000, 3_000, 7_000, 11_000, 15_000]
    ys = AT_ZERO + [v + (30 if j % 2 else -30) for j, v in enumerate(climb)]
    trend = current_trend([at(i) for i in range(len(ys))], ys)
    slope = np.polyfit([STEP * j for j in range(4)], ys[-4:], 1)[0] * 60
    assert trend.since == at(len(AT_ZERO) + 2) and trend.polls == 4
    assert trend.per_minute == pytest.approx(slope)


# A steady load's history wandering 300-700 with no trend, 5 s polls: 30 to 60 undo logs a poll, down from 690 to
# 310 and back up in turn, purge keeping up (the 34 polls average 498.4, and repeat). Its second differences are a
# few tens: a noise of about 6, against which each swing of a few hundred read as a turn.
WANDER = [500, 540, 590, 620, 660, 690, 670, 630, 581, 530, 480, 443, 410, 370, 330, 310, 340, 380, 420, 470,
          510, 560, 600, 640, 610, 570, 520, 460, 420, 390, 360, 400, 450, 490]


def test_a_history_wandering_300_to_700_makes_no_turn():
    """Once a whole swing has been polled, an engineer reads every poll as it comes as a level wandering 310-690:
    flat, no turn ("Fell from 640 to 610", "Rose from 360 to 400"), no drain nor growth. Before, the page went
    "turned", "draining ~500 / min", "early", "purge-bound ~500 / min" at each swing."""
    values = (WANDER * 4)[:120]
    for n in range(len(WANDER), len(values) + 1):
        trend = current_trend([at(i) for i in range(n)], values[:n])
        assert purge_verdict(values[n - 1], trend, 20_000, None).kind == "flat", (n, trend)
        assert trend.polls >= 16, (n, trend)


def test_a_wander_stretched_to_30_1170_makes_no_cliff_at_its_low_end():
    """The wander stretched three times about 300 (30-1,170, 90 to 180 undo logs a poll). Its low end 330, 210, 90,
    30 falls below a quarter in two polls (30 < 210 / 4 and < 330 / 4) and read as a read view released: "Fell
    from 90 to 30", then "early" and "purge-bound" up the next swing. By hand a fall of 180 in a wander of 1,140 is
    no release: every poll flat, as the wander 300-700 is."""
    values = [3.0 * (v - 300) for v in (WANDER * 4)[:120]]
    assert values[11:16] == [429.0, 330.0, 210.0, 90.0, 30.0] and last_cliff(values)[0] == 0
    for n in range(len(WANDER), len(values) + 1):
        trend = current_trend([at(i) for i in range(n)], values[:n])
        assert purge_verdict(values[n - 1], trend, 20_000, None).kind == "flat", (n, trend)
        assert trend.polls >= 16, (n, trend)


@pytest.mark.parametrize(("tail", "came_from", "at_poll", "polls"), [
    ([2_000], 49_500, 88, 1),  # a cliff: the read view released
    ([2_000, 1_900], 49_500, 88, 2),
    ([45_000], 49_500, 88, 1),  # purge getting going: from the peak (turned_from)
    ([45_000, 40_000], 49_500, 88, 2),
])
def test_a_real_fall_after_the_wander_is_said_from_its_peak(tail, came_from, at_poll, polls):
    """The wander twice (68 polls), then a read view held: +2,450 a poll to 49,500 (poll 87), then released. By
    hand: the fall is from 49,500, the turn's first poll is poll 88, 1 or 2 polls since: too few for a pace."""
    values = WANDER * 2 + [500 + 2_450 * k for k in range(1, 21)] + tail
    trend = current_trend([at(i) for i in range(len(values))], values)
    assert values[87] == 49_500 and trend.per_second is None
    assert trend.turned == (came_from, at(at_poll), polls)
    assert purge_verdict(values[-1], trend, 20_000, None).kind == "turned"
