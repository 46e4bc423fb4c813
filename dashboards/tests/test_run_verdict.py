"""The stability verdict on constructed TPS lines whose answer is known."""

import random
import re
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.template.loader import render_to_string

from dashboards.analysis.run_verdict import aligned, judge, warmup_end
from dashboards.analysis.verdict_words import verdict_text
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


def at(i: int, step: int = 1) -> datetime:
    return T0 + timedelta(seconds=step * i)


def noisy(n: int, level: float = 1000.0, sd: float = 20.0, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [level + rng.gauss(0, sd) for _ in range(n)]


def test_the_warmup_ends_where_the_ramp_does():
    values = [100 + 30 * i for i in range(30)] + noisy(300)  # 30 s ramp to ~1,000, then flat
    assert 27 <= warmup_end(values) <= 31


def test_stalls_are_no_warmup():
    values = noisy(300)
    for start in (20, 80, 140, 200, 260):
        values[start:start + 5] = [0.0] * 5
    assert warmup_end(values) <= 5  # cutting the first stall would lower the spread: it must not


def test_a_flat_line_is_steady_with_its_cv():
    values = noisy(600)
    verdict = judge([at(i) for i in range(600)], values)
    assert verdict.kind == "steady" and verdict.cv == pytest.approx(0.02, abs=0.004)
    values[100] = values[400] = 90.0  # a loaded host's one-poll blips: said, but still steady
    verdict = judge([at(i) for i in range(600)], values)
    assert verdict.kind == "steady" and verdict.other_dips == 2 and not verdict.dips


def test_sags_of_a_loaded_host_between_the_stalls_do_not_hide_the_period():
    values = noisy(120)
    for start in range(20, 120, 20):
        values[start:start + 4] = [0.0] * 4  # 5 stalls of 4 s, every 20 s
    values[28:31] = values[76:79] = [300.0] * 3  # two 3 s sags at irregular times
    verdict = judge([at(i) for i in range(120)], values)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(20) and len(verdict.dips) == 5
    # By hand: each sag is 3 low polls (from the poll before its first 300 to its last), no one-poll blip.
    assert verdict.other_dips == 0 and [(s.start, s.end, s.polls) for s in verdict.sags] == [
        (at(27), at(30), 3), (at(75), at(78), 3)]


def test_sags_that_do_not_stop_tps_are_said_as_sags_with_their_polls_depth_and_time():
    """Stalls of 4 polls every 20 s at a flat 1,000 TPS, a sag of 3 polls at 300, one of 2 at 450 and a one-poll
    blip at 90 between them. The headline read "and 3 one-poll dips (a blip, not a stall)": by hand, the level's
    median is 1,000 (94 of 120 polls), so the sags fall to 30 % and 45 % of it and the blip is the only one-poll dip."""
    values = [1000.0] * 120
    for start in range(20, 120, 20):
        values[start:start + 4] = [0.0] * 4
    values[28:31], values[76:78], values[50] = [300.0] * 3, [450.0] * 2, 90.0
    verdict = judge([at(i) for i in range(120)], values)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(20) and len(verdict.dips) == 5
    assert verdict.other_dips == 1
    assert [(s.polls, s.pct) for s in verdict.sags] == [(3, pytest.approx(30.0)), (2, pytest.approx(45.0))]
    assert verdict_text(verdict)["others"] == (
        "and 2 sags that slowed TPS without stopping it (3 polls to 30 % of its level from 09:00:27 to 09:00:30 UTC "
        "and 2 polls to 45 % of its level from 09:01:15 to 09:01:17 UTC), and 1 one-poll dip (a blip, not a stall)")
    html = render_to_string("dashboards/_verdict.html",
                            {"verdict": verdict, "verdict_text": verdict_text(verdict), "chart_id": "c"})
    assert "one-poll dips" not in html and "and 2 sags that slowed TPS" in html


def test_stalls_polled_every_10_s_are_one_poll_each_and_still_periodic():
    values = noisy(60)
    for i in range(3, 60, 6):
        values[i] = 400.0  # a 6 s stall in a 10 s poll: 40 % of the TPS
    verdict = judge([at(i, 10) for i in range(60)], values)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(60) and len(verdict.dips) == 10


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


def test_one_poll_blips_do_not_hide_the_period():
    values = noisy(300)
    for start in range(20, 300, 40):
        values[start:start + 5] = [0.0] * 5  # 7 stalls of 5 s, every 40 s
    values[52] = values[131] = 100.0  # two one-poll blips of a loaded host
    verdict = judge([at(i) for i in range(300)], values)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(40) and len(verdict.dips) == 7
    assert verdict.other_dips == 2 and verdict.dip_seconds == 5


def test_a_poll_that_counted_nothing_is_a_stall_not_a_blip():
    """Seen live: 4 sessions at ~470 TPS polled every 5 s, FLUSH TABLES WITH READ LOCK held 8 s five times,
    55, 30, 69 and 26 s apart. Four holds left one poll at 0 TPS (its whole interval inside the lock), one
    left two. Five stalls at irregular times, by hand; no one-poll blip: a poll of 0 TPS is TPS stopped."""
    values = noisy(60, 470.0, 40.0)
    for i in (4, 15, 16, 21, 35, 40):
        values[i] = 0.0
    verdict = judge([at(i, 5) for i in range(60)], values)
    assert verdict.kind == "dips" and len(verdict.dips) == 5 and verdict.other_dips == 0


def test_a_line_falling_2_percent_a_minute_is_drifting_with_an_interval_around_it():
    # 10 minutes at 10 s polls, from 1,000 down 20 a minute: -2 % of the start a minute.
    values = [v - 20 * i / 6 for i, v in enumerate(noisy(60, sd=5))]
    verdict = judge([at(i, 10) for i in range(60)], values, warmup=0)
    mean = sum(values) / len(values)
    assert verdict.kind == "drifting"
    assert verdict.drift.low < -2000 / mean < verdict.drift.high < 0
    assert verdict.drift.pct_per_min == pytest.approx(-2000 / mean, rel=0.05)


def test_a_history_length_growing_throughout_drifts_a_flat_tps_line():
    # 5 minutes at 1 s polls, TPS flat, history +40 a second (a read view held open): +2,400 a minute.
    history = [500 + 40 * i + (7 if i % 2 else -7) for i in range(300)]
    verdict = judge([at(i) for i in range(300)], noisy(300), history=history)
    assert verdict.kind == "drifting" and verdict.drift is None  # TPS did not drift: not said
    assert verdict.history.low < 2400 < verdict.history.high
    assert verdict.history.pct_per_min == pytest.approx(2400, rel=1e-3)
    assert judge([at(i) for i in range(300)], noisy(300), history=[500 + (i % 2) for i in range(300)]).kind == "steady"


def test_a_history_sawtooth_bounded_by_purge_is_no_drift_after_its_last_hump():
    # An audit's steady run (4 rw sessions, ~3,400 TPS, 5 s polls): the history length of its 21 polls after the
    # warm-up, purge emptying it in batches. The hump to 3,897 falls back to 449; then 449, 792, 2,113, 2,666 end
    # the range: 4 polls, within the 11-3,897 the whole run wandered (982 at its start), and the purge page read
    # the same range "Flat at 2,666: purge keeps up". A 4-poll line through one tooth of the saw is no drift.
    history = [982, 89, 271, 11, 2990, 2588, 2195, 1576, 1561, 680, 904, 206, 3288, 3897, 3694, 1541, 2018,
               449, 792, 2113, 2666]
    verdict = judge([at(i, 5) for i in range(21)], noisy(21, level=3400), history=history)
    assert verdict.history is None
    assert verdict.kind == "steady"


def test_lines_of_other_sources_are_aligned_to_the_nearest_tps_poll():
    ts = [at(i, 10) for i in range(5)]
    theirs = [t + timedelta(milliseconds=40) for t in ts[1:]] + [ts[-1] + timedelta(seconds=30)]
    assert aligned(ts, theirs, [1, 2, 3, 4, 5]) == [None, 1, 2, 3, 4]


def test_too_few_polls_give_no_verdict():
    assert judge([at(i) for i in range(5)], noisy(5)).kind == ""


@pytest.mark.django_db
def test_the_run_report_says_the_verdict_with_its_links(client, admin_user):
    from servers.models import Run
    from store.ingest import write_samples
    from store.sample import Sample
    from testing.servers import make_server

    client.force_login(admin_user)
    server = make_server("lab")
    end = datetime.now(UTC).replace(microsecond=0)
    start = end - timedelta(minutes=10)
    # 10 s polls of 5,000 transactions, but 1,000 in each poll at 55 s, 175 s, ...: one a 2 minutes.
    samples = [Sample(server.pk, "global_status", start + timedelta(seconds=10 * i), 10.0,
                      {"tps": 1000 if i % 12 == 5 else 5000 + 7 * (i % 3)}, frozenset({"tps"})) for i in range(1, 61)]
    write_samples(samples)
    run = Run.objects.create(name="stalls", server=server, started_at=start, ended_at=end)
    body = client.get(f"/runs/{run.pk}/report/").content.decode()
    verdict = body.split('id="verdict"')[1].split("</section>")[0]
    assert "Periodic dips every 120 s (5 occurrences, each 10 s long)" in verdict
    assert 'href="#chart-stability"' in verdict and 'href="#dips"' in verdict


@pytest.mark.django_db
def test_a_run_without_a_warmup_is_trimmed_where_the_data_says_it_ends(client, admin_user):
    from servers.models import Run
    from store.ingest import write_samples
    from store.sample import Sample
    from testing.servers import make_server

    client.force_login(admin_user)
    server = make_server("lab")
    end = datetime.now(UTC).replace(microsecond=0)
    start = end - timedelta(minutes=10)
    # 10 s polls: 6 polls ramping 500, 1,000, ... 3,000 a second, then 5,000 a second: the warm-up is 60 s.
    rates = [500 * i for i in range(1, 7)] + [5000 + 3 * (i % 2) for i in range(54)]
    write_samples(Sample(server.pk, "global_status", start + timedelta(seconds=10 * (i + 1)), 10.0,
                         {"tps": rate * 10}, frozenset({"tps"})) for i, rate in enumerate(rates))
    run = Run.objects.create(name="ramp", server=server, started_at=start, ended_at=end)
    response = client.get(f"/runs/{run.pk}/report/")
    summary = response.context["summary"]
    assert response.context["warmup_found"] and summary.warmup == 60
    assert summary.tps.mean == pytest.approx(sum(rates[6:]) / len(rates[6:]))
    assert "found from the data: the run gave none" in response.content.decode()
    run.warmup_seconds = 30
    run.save()
    assert client.get(f"/runs/{run.pk}/report/").context["summary"].warmup == 30  # the run's own wins


# Recorded on MariaDB 10.11 polled every 5 s: sysbench oltp_read_write --rate=20 --threads=2 while FLUSH TABLES WITH
# READ LOCK was held 10 s every 40 s (from 33 s after the first poll, 7 times). Seconds after the first poll, TPS.
FTWRL_AT = [0.0, 5.0, 10.001, 15.001, 19.999, 25.001, 30.001, 35.001, 40.001, 45.001, 50.003, 55.01, 60.001, 65.0,
            70.007, 75.0, 80.008, 85.01, 90.009, 95.001, 100.009, 105.001, 110.001, 115.034, 120.001, 125.002, 130.006,
            135.001, 140.0, 145.004, 150.004, 155.0, 160.01, 165.009, 170.003, 175.01, 180.001, 185.004, 190.013,
            195.006, 200.005, 205.009, 210.006, 215.0, 220.014, 225.006, 230.001, 235.019, 240.002, 245.01, 250.01,
            255.001, 260.001, 265.01, 270.005, 275.006, 280.001, 284.999, 290.0]
FTWRL_TPS = [17.41, 20.8, 22.995, 19.404, 18.604, 20.392, 17.804, 10.398, 0.0, 49.2, 24.99, 20.371, 21.434, 19.804,
             20.371, 10.214, 0.0, 46.172, 23.605, 16.426, 20.966, 18.63, 17.003, 12.912, 0.0, 43.982, 21.183, 20.621,
             17.604, 23.581, 19.8, 9.007, 0.0, 48.2, 18.025, 21.37, 21.038, 20.388, 22.759, 8.814, 0.0, 48.361, 20.412,
             19.824, 20.542, 18.63, 21.021, 9.566, 0.0, 44.928, 23.2, 16.026, 19.4, 19.166, 21.622, 8.8, 0.0, 48.219,
             22.795]


def test_a_stall_that_caught_one_low_poll_on_the_period_is_an_occurrence_not_a_blip():
    """Each stall reads as about half a poll's TPS, 0, then sysbench's queue catching up. Four stalls had their
    first poll below half the median (9.9 TPS), three just above it (10.4, 10.2, 12.9): those caught one low poll,
    starting a poll later than the others. The verdict said "every 40 s (4 occurrences, each 10 s long), and 3
    one-poll dips (a blip, not a stall)": 7 stalls by hand, every 40 s."""
    times = [T0 + timedelta(seconds=s) for s in FTWRL_AT]
    verdict = judge(times, FTWRL_TPS, warmup=0)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(40, abs=0.1)
    assert len(verdict.dips) == 7 and verdict.other_dips == 0
    # By hand, first low poll to the first back above, as the dips list measures them: 4 of 10 s, 3 of 5 s.
    assert [round(d.seconds) for d in verdict.dips] == [5, 5, 5, 10, 10, 10, 10]
    assert verdict.dip_seconds == pytest.approx(10, abs=0.1)
    sagged = list(FTWRL_TPS)
    sagged[19] = 4.0  # a one-poll sag at 95 s, 15 s before the grid's slot at 110 s: still a blip
    verdict = judge(times, sagged, warmup=0)
    assert len(verdict.dips) == 7 and verdict.other_dips == 1


def test_a_stall_whose_poll_counted_one_transaction_is_a_stall_not_a_blip():
    """An audit's run: 4 rw sessions at ~3,750 TPS polled every 5 s, FLUSH TABLES WITH READ LOCK held 7 s at 27 s
    and again at 75 s. Each stall caught one whole poll: one counted 0 transactions, the other 1 (0.2 TPS x 5 s,
    a commit across the poll's edge). The report read "Dips at irregular times (1), and 1 one-poll dip (a blip,
    not a stall)". By hand: two stalls, each stopping TPS for a whole poll; neither recurs on a grid (2 < 3)."""
    values = [3750.0 + (60 if i % 2 else -60) for i in range(20)]
    values[5], values[14] = 0.0, 0.2
    verdict = judge([at(i, 5) for i in range(20)], values, warmup=0)
    assert verdict.kind == "dips"
    assert [d.lowest for d in verdict.dips] == [0.0, 0.2] and verdict.other_dips == 0


def test_a_stall_that_left_one_poll_at_a_fortieth_of_its_level_is_a_stall_not_a_blip():
    """An audit's run: 4 rw sessions at ~1,860 TPS polled every 5 s, FLUSH TABLES WITH READ LOCK held 7 s three
    times, 25 s apart. Two holds left two low polls; one fell across the polls so that one poll caught most of it:
    44.6 TPS, where the level's median is 1,860 (under a tenth of it; (1 - 44.6 / 1,860) x 5 s = 4.88 s of its work
    lost, more than a loaded host's blip). The verdict read "Dips at irregular times (2), and 1 one-poll dip (a
    blip, not a stall)"; by hand: three stalls, every 25 s."""
    values = [1860.0 + (40 if i % 2 else -40) for i in range(30)]
    values[6:8], values[11], values[16:18] = [0.0, 500.0], 44.6, [0.0, 600.0]
    verdict = judge([at(i, 5) for i in range(30)], values, warmup=0)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(25)
    assert [d.lowest for d in verdict.dips] == [0.0, 44.6, 0.0] and verdict.other_dips == 0
    at_1s = [1000.0 + (20 if i % 2 else -20) for i in range(120)]
    at_1s[30] = at_1s[67] = at_1s[81] = 44.6  # the same fall in 1 s polls, at irregular times: 0.96 s lost, blips
    verdict = judge([at(i) for i in range(120)], at_1s, warmup=0)
    assert verdict.kind == "steady" and verdict.other_dips == 3


def test_a_one_poll_sag_minutes_after_the_periodic_stalls_is_no_occurrence():
    """The same polls, then 3 min of steady load and a one-poll sag (a workload's end) that fell on a slot of the
    40 s grid by chance, 320 s after the first two-poll stall: 8 occurrences in 12 slots is no longer periodic
    there, so it is a blip and the stalls stay 7 (seen on the stability page of the whole range: "8 occurrences")."""
    times = [T0 + timedelta(seconds=s) for s in FTWRL_AT] + [T0 + timedelta(seconds=295 + 5 * i) for i in range(36)]
    values = FTWRL_TPS + [20.0] * 36
    values[59 + 29] = 5.8  # at 440 s: the grid's slot (150 s + 7 x 40 s = 430 s) lies 10 s before it
    verdict = judge(times, values, warmup=0)
    assert verdict.kind == "periodic" and len(verdict.dips) == 7 and verdict.other_dips == 1


def test_fewer_than_ten_polls_after_the_warm_up_give_no_verdict():
    """Seen in the audit: a 50 s sysbench step polled every 5 s with a 10 s warm-up read "Noisy ... over 7
    points": the ten polls counted before the warm-up was cut. 10 polls, the first 3 the warm-up: 7 judged."""
    values = [1000.0 + (40 if i % 2 else -40) for i in range(10)]
    verdict = judge([at(i, 5) for i in range(10)], values, warmup=3)
    assert verdict.kind == "" and verdict.points == 7
    assert judge([at(i, 5) for i in range(13)], values + values[:3], warmup=3).kind == "steady"  # 10 judged: CV 4 %


# A ramp of 6 x i TPS that never reaches the band, stalls across the first third's end, then holds 180 and 188 in
# turn. By hand (91 polls, a third is 30): the polls after it are 5 (or 6) at 0 and 56 at 180/188, median 180, so
# the stall's bound is 90; the 56 left average 184 with a population SD of 4: band 184 - 2 x 4 = 176. The ramp's
# highest poll, 174 (or 162), lies below it: the cut is the third, 30, which is a poll at 0 of the stall.
LEVEL = [180.0, 188.0] * 28


def test_a_ramp_stalled_across_the_thirds_end_is_cut_past_the_stall():
    values = [6.0 * i for i in range(30)] + [0.0] * 5 + LEVEL  # the stall: polls 30 to 34
    assert warmup_end(values) == 35  # was 30: the stall's 5 zeros judged read "TPS from 0.0 to 184.0"
    verdict = judge([at(i, 2) for i in range(len(values))], values)
    assert verdict.kind == "steady" and verdict.warmup_polls == 35 and not verdict.shifts
    assert verdict.cv == pytest.approx(4 / 184)
    assert verdict.warmup_stall == (at(30, 2), at(34, 2))  # said, not hidden: polls 30 to 34 at 0


def test_a_ramps_stall_is_no_part_of_a_flat_first_level():
    # The same with the ramp 28 polls long and the stall 8 (polls 28 to 35): the cut runs past it, to 36. The ramp
    # climbs 6 a poll, 162 over its polls: no flat first level, so the cut stands (the stall's 0s fitted with it
    # read a flat level, and the line "TPS from 81.0 to 184.0" with no warm-up).
    values = [6.0 * i for i in range(28)] + [0.0] * 8 + LEVEL
    assert warmup_end(values) == 36
    verdict = judge([at(i, 2) for i in range(len(values))], values)
    assert verdict.kind == "steady" and verdict.warmup_polls == 36 and not verdict.shifts


def test_a_ramp_that_stalls_a_poll_after_reaching_its_level_is_cut_past_the_stall():
    # 7 x i TPS for 27 polls, 8 at 0 (polls 27 to 34), then 180 and 188 in turn: 91 polls, a third is 30. By hand,
    # the polls after it are 5 at 0 and the 56, median 180 (bound 90), band 176 as above: 7 x 26 = 182 is the first
    # in it, and the stall starts at the next poll, one poll of a level (5 at least) before it: the cut runs on to
    # 35. Before, 182 and the 0s read a first level, "TPS from 20.2 to 184.0" (182 / 9 = 20.2).
    values = [7.0 * i for i in range(27)] + [0.0] * 8 + LEVEL
    assert warmup_end(values) == 35
    verdict = judge([at(i, 2) for i in range(len(values))], values)
    assert verdict.kind == "steady" and verdict.warmup_polls == 35 and not verdict.shifts
    assert verdict.warmup_stall == (at(27, 2), at(34, 2))  # the 8 polls at 0, 16 s, named where the warm-up is
    said = verdict_text(verdict)["warmup"]
    assert f"ran on past a stall from {at(27, 2):%H:%M:%S} to {at(34, 2):%H:%M:%S} UTC" in said


def test_a_flat_line_that_stalls_at_its_end_has_a_stall_not_a_drift():
    # 80 polls of 198 and 202 in turn, then 4 at 0 to the range's end. By hand, the 80 polls' slope is
    # sum((x - 39.5)(y - 200)) / sum((x - 39.5)^2) = (2 x 40) / (80 x 6,399 / 12) = 0.0019 a poll: 0.15 TPS over
    # the range, far under 5 % of 200. Before, the 0s fitted with them read "Drifting: TPS -10.18 %/min".
    values = [198.0, 202.0] * 40 + [0.0] * 4
    verdict = judge([at(i, 2) for i in range(84)], values, warmup=0)
    assert verdict.kind == "dips" and verdict.drift is None
    assert [(d.start, d.end, d.lowest) for d in verdict.dips] == [(at(79, 2), at(83, 2), 0.0)]


def test_a_ramp_still_under_the_stall_bound_at_the_third_is_cut_at_the_third():
    # i x i TPS for 60 polls (a third is 20), no stall: a ramp that climbs to the last poll. By hand, the 40 polls
    # after the third (400 to 3,481) have median (39^2 + 40^2) / 2 = 1,560.5, bound 780.25; the 32 at or above it
    # (28^2 to 59^2) average (70,210 - 6,930) / 32 = 1,977.5 with a population SD of 806.9: band 363.7, above
    # 19^2 = 361, so the cut is the third, 20. Its poll, 400, is under the bound but TPS did not fall to it (it is
    # over half of 361, the highest before it): no stall. It was cut past 20, at 28 (the first poll at or above the
    # bound), and the run's figures with it: the TPS average after the warm-up read 1,977.5, not 1,693.5 (the mean
    # of 20^2 to 59^2).
    values = [float(i * i) for i in range(60)]
    assert warmup_end(values) == 20


def test_a_lower_level_around_the_stall_bound_is_no_stall():
    # 5,000 TPS for 30 polls, then 10,000 for 30 (a third is 20); polls 20 to 29 wobble around 5,000: 5,010, 4,990,
    # 4,990, 5,010, 4,990, 4,990, then 5,010. By hand, the 40 after the third have median 10,000, bound 5,000; the 36
    # at or above it (six 5,010s, thirty 10,000s) average 9,168.3 with a population SD of 1,859.7: band 5,449.0,
    # above every poll before the third, so the cut is the third, 20. Polls 21 and 22 (4,990) are under the bound
    # but far over half of the 5,010 before them: no fall, no stall. They were taken for one, the cut run on to 23.
    values = [5000.0] * 20 + [5010.0, 4990.0, 4990.0, 5010.0, 4990.0, 4990.0] + [5010.0] * 4 + [10000.0] * 30
    assert warmup_end(values) == 20


SWING = (5.0, -5.0, 3.0, -3.0)  # sums to 0 over every 4 polls


def catching_up() -> list[float]:
    """sysbench --rate 200 (10 s polls): a ramp of 9 polls (20 to 180), 30 at 200 +- 5, a stall of 5 at 0, 3 at 1,000
    (the queued transactions caught up), then 40 at 200 +- 5."""
    level = [200.0 + SWING[i % 4] for i in range(70)]
    return [20.0 * i for i in range(1, 10)] + level[:30] + [0.0] * 5 + [1000.0] * 3 + level[30:]


def test_a_catch_up_after_a_stall_does_not_hide_the_warm_up():
    """The 1,000s spread the steady part: its band, mean - 2 deviations, lay under 0 and no warm-up was cut; the
    ramp read as a dip. By hand: the band is 200 less twice the level's deviation (4.1), 191.8, over every ramp
    poll: the warm-up is the 9 polls of the ramp; the one dip is the stall, from the poll before it (the 39th)."""
    values = catching_up()
    ts = [at(i, 10) for i in range(len(values))]
    assert warmup_end(values) == 9
    verdict = judge(ts, values)
    assert verdict.warmup_polls == 9 and verdict.warmup_end == at(9, 10)
    assert verdict.kind == "dips" and [(d.start, d.end) for d in verdict.dips] == [(at(38, 10), at(43, 10))]
    said = verdict_text(verdict)["warmup"]
    assert said == "after the warm-up (found from the data): judged from the poll at 09:01:30 UTC"


def test_the_stability_page_cuts_the_warm_up_before_a_catch_up(admin_client, db):
    server = make_server("catch-up")
    values = catching_up()
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    polls = [start + timedelta(seconds=10 * i + 0.3) for i in range(1, len(values) + 1)]
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": round(rate * 10)}, frozenset({"tps"}))
                   for t, rate in zip(polls, values, strict=True)])
    body = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S}", "to": f"{polls[-1] + timedelta(seconds=1):%Y-%m-%dT%H:%M:%S}",
    }).content.decode()
    part = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", body.split('id="verdict"')[1].split("</section>")[0]))
    assert "Dips at irregular times (1)" in part
    assert f"after the warm-up (found from the data): judged from the poll at {polls[9]:%H:%M:%S} UTC" in part


def test_an_idle_server_with_one_burst_is_idle_not_noisy():
    """34 polls 5 s apart at 0 TPS but one, the 21st (09:01:40), at 100 TPS: 100 x 5 s = 500 transactions. Its CV,
    sqrt(33) = 574 %, read "Noisy"; by hand 33 of 34 polls counted no transaction, and the burst is when the work
    came: idle, with one burst of 500 transactions from 09:01:35 (the poll before) to 09:01:40 UTC."""
    values = [0.0] * 34
    values[20] = 100.0
    verdict = judge([at(i, 5) for i in range(34)], values)
    assert verdict.kind == "idle" and verdict.idle_polls == 33
    assert verdict_text(verdict)["idle"] == ("33 of 34 polls counted next to no transactions (fewer than 5 each), "
                                             "with one burst: 500 transactions from 09:01:35 to 09:01:40 UTC")


def test_bursts_of_a_few_polls_at_the_end_are_no_drift():
    """60 polls 5 s apart at 0.2 TPS (1 transaction a poll, under 5), but 3 polls at 10, 12 and 8 TPS from the 55th
    on: 50 + 60 + 40 = 150 transactions, 57 of 60 polls idle (95 %). Before, it read "Drifting"."""
    values = [0.2] * 60
    values[54:57] = [10.0, 12.0, 8.0]
    verdict = judge([at(i, 5) for i in range(60)], values)
    assert verdict.kind == "idle"
    assert verdict_text(verdict)["idle"] == ("57 of 60 polls counted next to no transactions (fewer than 5 each), "
                                             "with one burst: 150 transactions from 09:04:25 to 09:04:40 UTC")


def test_an_idle_server_with_no_burst_says_its_polls():
    """20 polls 5 s apart at 0 TPS but one at 0.4 (2 transactions, under 5): CV sqrt(19) = 436 %, no burst."""
    values = [0.0] * 20
    values[7] = 0.4
    verdict = judge([at(i, 5) for i in range(20)], values)
    assert verdict.kind == "idle" and verdict.bursts == ()
    assert verdict_text(verdict)["idle"] == "20 of 20 polls counted next to no transactions (fewer than 5 each)"


def test_too_few_polls_after_tps_basis_changed_say_why_and_from_when():
    """A 15-minute view of 177 points 5 s apart whose last 5 counted every transaction (the counter turned on at
    the 173rd, 09:14:20): the verdict judges those 5 only, too few, and said so with no reason."""
    times = [at(i, 5) for i in range(177)]
    verdict = judge(times[172:], [300.0] * 5)
    assert verdict.kind == "" and verdict.points == 5
    said = verdict_text(verdict, basis=(times[172], "every transaction", 172))["too_few"]
    assert said == ("Too few polls for a verdict (5; at least 10): judged from 2026-03-02 09:14:20 UTC on, the first "
                    "point that counted TPS as every transaction; the 172 points before it counted it another way "
                    "(the note above), and the step between them is the counter's, no level change of the server's. "
                    "A verdict needs 10 polls counted the new way: a later range, or one starting at 09:14:20 UTC")
    assert verdict_text(verdict)["too_few"] == "Too few polls for a verdict (5; at least 10)"


def test_within_dips_is_after_a_dips_start_up_to_its_end_overlaps_included():
    """By hand: dips (10, 20] and (15, 40] and (60, 70]: 10 and 45 and 60 are outside, 11, 20, 30, 40, 70 inside."""
    from dashboards.analysis.run_verdict import within
    from dashboards.analysis.stability import Dip

    t0 = datetime(2026, 11, 28, tzinfo=UTC)
    dip = [Dip(t0 + timedelta(seconds=a), t0 + timedelta(seconds=b), 0.0) for a, b in ((15, 40), (10, 20), (60, 70))]
    at = [10, 11, 20, 30, 40, 45, 60, 70, 71]
    seconds = np.array([(t0 + timedelta(seconds=s)).timestamp() for s in at])
    assert within(seconds, dip).tolist() == [False, True, True, True, True, False, False, True, False]
    assert within(seconds, []).tolist() == [False] * len(at)
