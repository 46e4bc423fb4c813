"""A workload change is a level change, not a drift: the verdict on a TPS line that steps from one level to another.

Seen in a new user's audit: 7.5 minutes of sysbench oltp_read_write at 19.6 TPS, then oltp_write_only at 30.8 TPS,
read "Drifting: TPS 9.39 %/min", and a wait whose rate fell with the new mix read as moving against TPS (-0.82).
"""

import re
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.run_summary import warmup_found
from dashboards.analysis.run_verdict import judge
from dashboards.analysis.verdict_words import levels_said, shifted
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import level_change_recorded as recorded
from testing.servers import make_server

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
JITTER = (0.4, -0.4, 0.2, -0.2)  # sums to 0 over every 4 polls: each level's mean is its level exactly


def at(i: int) -> datetime:
    return T0 + timedelta(seconds=10 * i)


def stepped(before: float = 19.6, after: float = 30.8, polls: int = 44) -> list[float]:
    return [before + JITTER[i % 4] for i in range(polls)] + [after + JITTER[i % 4] for i in range(polls)]


def recent_polls(n: int) -> tuple[datetime, list[datetime]]:
    """A range's start 20 minutes ago, and n polls 10 s apart after it (each 0.3 s past a whole second)."""
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    return start, [start + timedelta(seconds=10 * i + 0.3) for i in range(1, n + 1)]


def write_rates(server, polls: list[datetime], rates: list[float]) -> None:
    """TPS's counter at each poll: its rate's transactions over the 10 s before it, as the collector stores them."""
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": round(rate * 10)}, frozenset({"tps"}))
                   for t, rate in zip(polls, rates, strict=True)])


def page_verdict(client, server, start: datetime, last: datetime) -> str:
    """The stability page's verdict from `start` to just after the poll `last`, as text with its tags left out."""
    body = client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S}", "to": f"{last + timedelta(seconds=1):%Y-%m-%dT%H:%M:%S}",
    }).content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", body.split('id="verdict"')[1].split("</section>")[0]))


def test_a_tps_line_that_steps_up_is_a_level_change_at_the_first_poll_of_the_new_level():
    verdict = judge([at(i) for i in range(88)], stepped(), warmup=0)
    assert verdict.kind == "shifted" and verdict.drift is None
    assert verdict.shift.at == at(44)
    assert verdict.shift.before == pytest.approx(19.6) and verdict.shift.after == pytest.approx(30.8)
    assert verdict.shift.pct == pytest.approx((30.8 - 19.6) / 19.6 * 100)  # +57.1 %


def test_a_ramp_over_the_same_levels_is_still_a_drift():
    ramp = [19.6 + (30.8 - 19.6) * i / 87 + JITTER[i % 4] for i in range(88)]
    verdict = judge([at(i) for i in range(88)], ramp, warmup=0)
    assert verdict.kind == "drifting" and verdict.shift is None


def test_a_step_smaller_than_a_tenth_of_the_mean_is_no_level_change():
    verdict = judge([at(i) for i in range(88)], stepped(100.0, 108.0), warmup=0)
    assert verdict.kind != "shifted"


def test_waits_are_read_against_tps_within_each_level():
    tps = stepped()
    # Falls with the new mix, its own jitter unrelated to TPS's: no wait of TPS's.
    mix = [100.0 + (3 if i % 3 else -6) for i in range(44)] + [60.0 + (3 if i % 3 else -6) for i in range(44)]
    # Rises each time TPS falls inside a level: one that slows it.
    lock = [5.0 - 10 * JITTER[i % 4] for i in range(88)]
    verdict = judge([at(i) for i in range(88)], tps, waits={"mix": mix, "lock": lock}, warmup=0)
    assert verdict.kind == "shifted"
    assert [name for name, _ in verdict.waits] == ["lock"]
    assert verdict.waits[0][1] == pytest.approx(-1.0)


def test_the_stability_page_says_the_level_change(admin_client, db):
    server = make_server("mix")
    start, polls = recent_polls(88)
    write_rates(server, polls, stepped())
    part = page_verdict(admin_client, server, start, polls[-1])
    assert f"Level change: TPS from 19.6 to 30.8 at {polls[44]:%H:%M:%S} (+57 %)" in part
    assert "Drifting" not in part


def test_a_short_lower_first_level_is_a_level_not_a_warm_up():
    """Seen in a second audit: 16 polls at 30 TPS, then 30 at 90; the warm-up rule cut the first level as the
    polls below the rest's band, and the line read "Drifting: TPS 4.00 %/min"."""
    values = stepped(30.0, 90.0, 16)[:16] + [90.0 + JITTER[i % 4] for i in range(32)]
    verdict = judge([at(i) for i in range(48)], values)
    assert verdict.warmup_polls == 0 and verdict.kind == "shifted"
    assert verdict.shift.at == at(16)
    assert verdict.shift.before == pytest.approx(30.0) and verdict.shift.after == pytest.approx(90.0)


def test_a_warm_up_that_climbs_to_its_level_is_still_cut():
    ramp = [100.0 + 900.0 * i / 20 for i in range(20)]  # cache warming: 100 -> 1,000 over 20 polls
    values = ramp + [1000.0 + 10 * JITTER[i % 4] for i in range(200)]
    verdict = judge([at(i) for i in range(220)], values)
    assert 15 <= verdict.warmup_polls <= 21 and verdict.kind == "steady"


def test_a_load_that_starts_after_the_first_poll_has_that_poll_cut_as_its_warm_up():
    """Seen in CI: a range taken from the poll before a live load began read "drifting" (CV 16 %). By hand: the
    polls after the first 42 // 3 = 14 are 190 +- 1 (mean 190, population SD 1, band 188); 0, 180 and 179 lie
    below it, 190 does not: three polls cut. They climb from 0 to 190, though 179 is under 180."""
    values = [0.0, 180.0, 179.0] + [190.0 + (1 if i % 2 else -1) for i in range(39)]
    verdict = judge([at(i) for i in range(42)], values)
    assert verdict.warmup_polls == 3 and verdict.kind == "steady"
    assert verdict.cv == pytest.approx(1 / 190, rel=0.03)  # 39 polls: 20 at 189 and 19 at 191


def test_a_poll_that_caught_the_change_mid_poll_counts_in_neither_level():
    """Seen in an audit: a low load (the driver's 372 TPS, its polls 345.9-391.5) read "TPS from 442.1 to 3,040.6
    (+588 %)", its last poll, 1,423.8, counted in it. By hand: 16 polls at 360 (with JITTER, mean 360 exactly),
    the 1,423.8 (nearer 360 than 3,040: the low level's; 1,063.8 off the 360s' median, 39.7 % of the way to the
    3,040s' median and far over 3 x their SD of 0.32), then 16 at 3,040: 360.0 -> 3,040.0, +744.4 %."""
    values = [360.0 + JITTER[i % 4] for i in range(16)] + [1423.8] + [3040.0 + JITTER[i % 4] for i in range(16)]
    verdict = judge([at(i) for i in range(33)], values, warmup=0)
    assert verdict.kind == "shifted", verdict.kind
    assert [(s.before, s.after) for s in verdict.shifts] == [(pytest.approx(360.0), pytest.approx(3040.0))]
    assert "TPS from 360.0 to 3,040.0" in shifted(verdict) and "(+744 %)" in shifted(verdict)


def levels(*means: float, polls: int = 16) -> list[float]:
    """`polls` polls at each mean in turn, each with JITTER (a level's mean is its mean exactly)."""
    return [m + JITTER[i % 4] for m in means for i in range(polls)]


def test_a_load_raised_then_lowered_is_two_level_changes_not_steady():
    """Seen on the stability page: 30 -> 90 -> 30 TPS read "Steady (CV 62 %)". One split leaves 3/4 of a line's
    squared residuals (30 | 60 against a flat line at 50), so no single level change passes; the two do."""
    verdict = judge([at(i) for i in range(48)], levels(30.0, 90.0, 30.0), warmup=0)
    assert verdict.kind == "shifted" and verdict.drift is None
    # The new levels start at polls 16 and 32: 09:02:40 and 09:05:20.
    assert [s.at for s in verdict.shifts] == [at(16), at(32)]
    assert [(s.before, s.after) for s in verdict.shifts] == [pytest.approx((30.0, 90.0)), pytest.approx((90.0, 30.0))]
    assert verdict.shifts[0].pct == pytest.approx(200.0) and verdict.shifts[1].pct == pytest.approx(-200 / 3)
    # Population variance: levels about the mean 50 (2/3 x 20^2 + 1/3 x 40^2 = 800) plus the jitter's 0.1.
    assert verdict.cv == pytest.approx(800.1 ** 0.5 / 50)
    assert shifted(verdict) == "TPS from 30.0 to 90.0 at 09:02:40 (+200 %), to 30.0 at 09:05:20 (-67 %)"
    assert levels_said(verdict) == ("Three levels, not a drift: the load or a setting changed at 09:02:40 and "
                                    "09:05:20 UTC (mark them as annotations to keep them); each level is read on "
                                    "its own")


def test_two_steps_up_on_flat_levels_are_two_level_changes_not_a_ramp_nor_dips():
    """The first level sits at half the range's median (60): its polls below 30 are no stalls of the range, and
    a line through 30, 60, 90 leaves each level's own ramp of 30 TPS while the levels leave the jitter alone."""
    verdict = judge([at(i) for i in range(48)], levels(30.0, 60.0, 90.0))
    assert verdict.kind == "shifted" and verdict.warmup_polls == 0 and verdict.dips == ()
    assert [s.at for s in verdict.shifts] == [at(16), at(32)]
    assert [(s.before, s.after) for s in verdict.shifts] == [pytest.approx((30.0, 60.0)), pytest.approx((60.0, 90.0))]
    assert shifted(verdict) == "TPS from 30.0 to 60.0 at 09:02:40 (+100 %), to 90.0 at 09:05:20 (+50 %)"


def test_a_ramp_over_the_same_span_is_a_drift_not_levels():
    ramp = [30.0 + 60.0 * i / 47 for i in range(48)]  # 30 -> 90 over 47 polls of 10 s
    verdict = judge([at(i) for i in range(48)], ramp, warmup=0)
    assert verdict.kind == "drifting" and verdict.shifts == ()
    # 60 TPS in 470 s: 7.66 TPS a minute, of the mean 60: 12.77 %/min.
    assert verdict.drift.pct_per_min == pytest.approx(60 / 470 * 60 / 60 * 100)


def test_one_step_still_reads_one_level_change():
    verdict = judge([at(i) for i in range(88)], stepped(), warmup=0)
    assert len(verdict.shifts) == 1
    assert shifted(verdict) == "TPS from 19.6 to 30.8 at 09:07:20 (+57 %)"  # poll 44: 440 s after 09:00:00
    assert levels_said(verdict) == ("Two levels, not a drift: the load or a setting changed at 09:07:20 UTC "
                                    "(mark it as an annotation to keep it); each level is read on its own")


def test_noise_on_a_flat_line_is_steady():
    noise = (6.0, -6.0, 3.0, -3.0, -4.0, 4.0)  # sums to 0: the mean is 100
    verdict = judge([at(i) for i in range(60)], [100.0 + noise[i % 6] for i in range(60)], warmup=0)
    assert verdict.kind == "steady" and verdict.shifts == ()
    assert verdict.cv == pytest.approx((2 * (36 + 9 + 16) / 6) ** 0.5 / 100)  # population sd 4.51: CV 4.5 %


def test_waits_are_read_against_tps_within_each_of_three_levels():
    tps = levels(30.0, 90.0, 30.0)
    mix = [m + (3 if i % 3 else -6) for m in (100.0, 40.0, 100.0) for i in range(16)]  # steps with the load only
    lock = [5.0 - 10 * JITTER[i % 4] for i in range(48)]  # rises each time TPS falls inside a level
    verdict = judge([at(i) for i in range(48)], tps, waits={"mix": mix, "lock": lock}, warmup=0)
    assert len(verdict.shifts) == 2
    assert [name for name, _ in verdict.waits] == ["lock"]
    assert verdict.waits[0][1] == pytest.approx(-1.0)


def test_a_level_of_no_transactions_is_said_without_a_percentage_of_nothing():
    """A load started for 16 polls, then stopped: 0 -> 90 has no percentage; 90 -> 0 is -100 %. The 16 polls at 0
    at each end are one level each, not several (two levels of 0 are no change)."""
    values = [0.0] * 16 + levels(90.0, polls=16) + [0.0] * 16
    verdict = judge([at(i) for i in range(48)], values, warmup=0)
    assert shifted(verdict) == "TPS from 0.0 to 90.0 at 09:02:40, to 0.0 at 09:05:20 (-100 %)"


def test_the_stability_page_says_every_level_change(admin_client, db):
    server = make_server("raised")
    start, polls = recent_polls(48)
    write_rates(server, polls, levels(30.0, 90.0, 30.0))
    part = page_verdict(admin_client, server, start, polls[-1])
    # The new levels start at the 17th and the 33rd poll.
    assert (f"Level changes: TPS from 30.0 to 90.0 at {polls[16]:%H:%M:%S} (+200 %), "
            f"to 30.0 at {polls[32]:%H:%M:%S} (-67 %)") in part
    assert (f"Three levels, not a drift: the load or a setting changed at {polls[16]:%H:%M:%S} and "
            f"{polls[32]:%H:%M:%S} UTC (mark them as annotations to keep them)") in part
    assert "Steady" not in part


def test_a_sag_of_a_tenth_of_the_range_is_two_level_changes():
    """6 of 60 polls at 70 amid 100s: no split of the whole range has sides 10 % apart (at poll 20: 100 against
    (6 x 70 + 34 x 100) / 40 = 95.5), yet the sag's two changes each part levels 30 % apart."""
    values = levels(100.0, polls=20) + levels(70.0, polls=6) + levels(100.0, polls=34)
    verdict = judge([at(i) for i in range(60)], values, warmup=0)
    # JITTER over 6 polls sums to 0.4 - 0.4 + 0.2 - 0.2 + 0.4 - 0.4 = 0: the sag's mean is 70 exactly.
    assert shifted(verdict) == "TPS from 100.0 to 70.0 at 09:03:20 (-30 %), to 100.0 at 09:04:20 (+43 %)"


def test_a_long_stall_between_two_equal_levels_is_a_dip_not_two_level_changes():
    # 30 polls at 90, 12 at 0 (a lock held two minutes), 30 at 90: a tenth of the range and more, so the
    # segmentation finds three levels; 0 is under a tenth of 90 on both sides, so the stall is the 90 level's dip.
    tps = [90.0 + JITTER[i % 4] for i in range(30)] + [0.0] * 12 + [90.0 + JITTER[i % 4] for i in range(30)]
    verdict = judge([at(i) for i in range(72)], tps, warmup=0)
    assert verdict.kind == "dips" and not verdict.shifts
    # A dip runs from the poll before its first low one to its last low one.
    assert [(d.start, d.end) for d in verdict.dips] == [(at(29), at(41))]


def test_a_lowered_load_between_two_equal_levels_stays_two_level_changes():
    tps = [90.0 + JITTER[i % 4] for i in range(30)] + [30.0] * 12 + [90.0 + JITTER[i % 4] for i in range(30)]
    verdict = judge([at(i) for i in range(72)], tps, warmup=0)
    assert verdict.kind == "shifted" and [s.at for s in verdict.shifts] == [at(30), at(42)]


def test_a_stall_between_two_different_levels_leaves_the_change_across_it():
    # 30 polls at 90, 12 at 0, 30 at 30: the 0s are a stall (under a tenth of both sides), and the load came
    # back lower. As if the stall's polls had not been read: 90 then 30, the new level from its first poll, at(42).
    tps = [90.0 + JITTER[i % 4] for i in range(30)] + [0.0] * 12 + [30.0 + JITTER[i % 4] for i in range(30)]
    verdict = judge([at(i) for i in range(72)], tps, warmup=0)
    assert verdict.kind == "shifted" and len(verdict.shifts) == 1
    assert verdict.shift.at == at(42)
    assert (verdict.shift.before, verdict.shift.after) == (pytest.approx(90.0), pytest.approx(30.0))


def test_a_sweep_of_one_two_and_four_threads_is_two_level_changes_not_a_drift():
    """Seen in the audit: a 1/2/4-thread sweep (230 -> 396 -> 725 TPS) read "Drifting: TPS 64.22 %/min"."""
    verdict = judge([at(i) for i in range(48)], levels(230.0, 396.0, 725.0), warmup=0)
    assert verdict.kind == "shifted" and [s.at for s in verdict.shifts] == [at(16), at(32)]
    assert [(s.before, s.after) for s in verdict.shifts] == [(pytest.approx(230.0), pytest.approx(396.0)),
                                                              (pytest.approx(396.0), pytest.approx(725.0))]


def test_tps_swinging_with_no_trend_level_or_stall_is_noisy_not_steady():
    # 100 +/- 40 every other poll: mean 100, population standard deviation 40, CV 0.40 (over NOISY_CV, 0.25);
    # no poll under half the median (60 > 50), no split 10 % apart, no slope.
    swinging = [100.0 + (40 if i % 2 else -40) for i in range(48)]
    verdict = judge([at(i) for i in range(48)], swinging, warmup=0)
    assert verdict.kind == "noisy" and verdict.cv == pytest.approx(0.40)
    # The same with +/- 10: CV 0.10, steady.
    calm = [100.0 + (10 if i % 2 else -10) for i in range(48)]
    assert judge([at(i) for i in range(48)], calm, warmup=0).kind == "steady"


def test_the_stability_page_says_noisy(admin_client, db):
    server = make_server("swinging")
    start, polls = recent_polls(48)
    write_rates(server, polls, [100.0 + (40 if i % 2 else -40) for i in range(len(polls))])
    part = page_verdict(admin_client, server, start, polls[-1])
    # 100 TPS +/- 40 (1,000 +/- 400 transactions a 10 s poll): CV 40.0 %.
    assert "Noisy: TPS swings around its level with no trend, level change or stall (CV 40.0 %)" in part


def test_a_range_ending_on_a_stall_says_a_stall_not_a_load_change():
    """Seen in the second audit during a 90 s FLUSH TABLES WITH READ LOCK: "Level change: TPS from 86.2 to 3.6 ...
    the load or a setting changed". 30 polls at 90, then 12 at 2 to the end: 2 is under a tenth of 90."""
    tps = [90.0 + JITTER[i % 4] for i in range(30)] + [2.0] * 12
    verdict = judge([at(i) for i in range(42)], tps, warmup=0)
    assert verdict.kind == "shifted" and verdict.shift.at == at(30)
    assert levels_said(verdict) == ("TPS fell to under a tenth of its level at 09:05:00 UTC and stayed there to the "
                                    "range's end: a stall still going (a lock held, a full disk) or the load "
                                    "stopped; the dips table lists it")


def test_level_changes_then_a_stall_say_both():
    tps = levels(30.0, 90.0) + [1.0] * 16  # 16 polls each: changes at at(16) and at(32)
    verdict = judge([at(i) for i in range(48)], tps, warmup=0)
    assert [s.at for s in verdict.shifts] == [at(16), at(32)]
    assert levels_said(verdict).startswith("Two levels, not a drift: the load or a setting changed at 09:02:40 UTC "
                                           "(mark it as an annotation to keep it); each level is read on its own; "
                                           "then TPS fell to under a tenth of its level at 09:05:20 UTC")


def runs(*counted: tuple[float, int]) -> list[float]:
    """`polls` polls at each (mean, polls) in turn, with JITTER but for a level of 0 (each count here is even, so
    a level's jitter sums to 0: its mean is its mean exactly)."""
    return [m + (JITTER[i % 4] if m else 0.0) for m, polls in counted for i in range(polls)]


def test_a_short_first_level_is_a_level_change_not_a_drift():
    """Seen on the stability page: 8 polls at 165 opening the range, then 43, 162, 84 and 10 polls at 0, read
    "Drifting". 112 polls: a level needed 11 (a tenth), so no split could part the first 8, the first level was
    165 x 8 with three 43s, and each change failed in turn against a level mixed so. A level at the range's edge
    may be cut short by the range; 5 polls are enough there."""
    tps = runs((165.0, 8), (43.0, 26), (162.0, 24), (84.0, 44), (0.0, 10))
    verdict = judge([at(i) for i in range(112)], tps)
    assert verdict.kind == "shifted" and verdict.drift is None and verdict.warmup_polls == 0
    # New levels from polls 8, 34, 58 and 102: 80, 340, 580 and 1,020 s after 09:00:00. -73.9, +276.7, -48.1 %.
    assert shifted(verdict) == ("TPS from 165.0 to 43.0 at 09:01:20 (-74 %), to 162.0 at 09:05:40 (+277 %), "
                                "to 84.0 at 09:09:40 (-48 %), to 0.0 at 09:17:00 (-100 %)")
    assert levels_said(verdict) == (
        "Four levels, not a drift: the load or a setting changed at 09:01:20, 09:05:40 and 09:09:40 UTC (mark them "
        "as annotations to keep them); each level is read on its own; then TPS fell to under a tenth of its level "
        "at 09:17:00 UTC and stayed there to the range's end: a stall still going (a lock held, a full disk) or "
        "the load stopped; the dips table lists it")


def test_a_short_last_level_is_a_level_change():
    """The mirror, with no stall: 84 x 44, 162 x 24, 43 x 26, then 8 polls at 165 to the range's end (102 polls:
    10 a level, before). It read "Noisy": the last level took two 43s, and every change failed in turn."""
    tps = runs((84.0, 44), (162.0, 24), (43.0, 26), (165.0, 8))
    verdict = judge([at(i) for i in range(102)], tps, warmup=0)
    assert verdict.kind == "shifted"
    # From polls 44, 68 and 94; +92.9, -73.5, +283.7 %.
    assert shifted(verdict) == ("TPS from 84.0 to 162.0 at 09:07:20 (+93 %), to 43.0 at 09:11:20 (-73 %), "
                                "to 165.0 at 09:15:40 (+284 %)")


def test_noise_at_the_edges_of_a_long_range_is_no_level_change():
    """Over 120 polls (12 a level inside), the first or last 5 polls may now be a level. 90/110 alternating is
    steady (CV 10 %), 60/140 noisy (CV 40 %), each still so when its first (or last) 5 polls all fall on the
    low side: 90 against the rest's 100.1 (58 x 110, 57 x 90) is 10 % apart, but two levels leave nearly all of
    a line's squares (the rest's own swing of 10 each poll), far over the half a level change may leave."""
    for swing, kind in ((10.0, "steady"), (40.0, "noisy")):
        line = [100.0 + (swing if i % 2 else -swing) for i in range(120)]
        low_start = [100.0 - swing] * 5 + line[5:]
        for tps in (line, low_start, low_start[::-1]):
            verdict = judge([at(i) for i in range(120)], tps, warmup=0)
            assert verdict.kind == kind and verdict.shifts == (), (swing, tps[:6])


def test_a_stall_with_an_uneven_recovery_is_a_stall_then_a_level_change():
    """Seen on the stability page: 170 x 11, 0 x 5, 164, 26, then 45 x 13 read one level change at the stall's
    start, to a level with the 0s in it. The split at the stall's end failed: the level after it (164, 26 and the
    45s) is uneven, so the stall was merged into the new level before its polls could be told a stall.

    By hand: polls 11-15 are the stall (0, under a tenth of 170 before and of 45 after), left out of the levels;
    poll 16 (164) is the old load back at its rate, nearer 170 than 45: the old level is 11 x 170 and 164,
    2,034 / 12 = 169.5. Poll 17 (26) is nearer 45 (the load changed within it): the new level is 26 and
    13 x 45, 611 / 14 = 43.64, from poll 17 (170 s after 09:00:00); -74.25 %."""
    tps = [170.0] * 11 + [0.0] * 5 + [164.0, 26.0] + [45.0] * 13
    verdict = judge([at(i) for i in range(31)], tps, warmup=0)
    assert verdict.kind == "shifted" and len(verdict.shifts) == 1
    assert verdict.shift.at == at(17)
    assert (verdict.shift.before, verdict.shift.after) == (pytest.approx(2034 / 12), pytest.approx(611 / 14))
    assert shifted(verdict) == "TPS from 169.5 to 43.6 at 09:02:50 (-74 %)"
    # The stall's polls are 11 (110 s after 09:00:00) to 15 (150 s).
    assert levels_said(verdict) == (
        "Two levels, not a drift: the load or a setting changed at 09:02:50 UTC (mark it as an annotation to keep "
        "it); each level is read on its own; the polls from 09:01:50 to 09:02:30 UTC are a stall (under a tenth "
        "of the levels on both sides), left out of the levels; the dips table lists it")


def test_the_stability_page_says_the_stall_apart_from_the_level_change(admin_client, db):
    server = make_server("uneven")
    start, polls = recent_polls(31)
    tps = [170.0] * 11 + [0.0] * 5 + [164.0, 26.0] + [45.0] * 13
    write_rates(server, polls, tps)
    part = page_verdict(admin_client, server, start, polls[-1])
    # As the pure test above: 169.5 -> 43.6 from the 18th poll; the stall is the 12th to the 16th.
    assert f"Level change: TPS from 169.5 to 43.6 at {polls[17]:%H:%M:%S} (-74 %)" in part
    assert (f"the polls from {polls[11]:%H:%M:%S} to {polls[15]:%H:%M:%S} UTC are a stall (under a tenth of the "
            "levels on both sides), left out of the levels; the dips table lists it") in part


def test_a_noisy_level_between_two_calm_ones_is_still_two_level_changes():
    """Recorded: sysbench at 1, 6, then 1 thread (testing/level_change_recorded.py). The 6-thread level's noise
    (91 to 195 TPS) left each change over half a line's squares, and the page read "Noisy (CV 40.9 %)"."""
    start = datetime(2026, 11, 26, 22, 28, 49, 575000, tzinfo=UTC)
    ts = [start + timedelta(seconds=s) for s in recorded.OFFSETS_S]
    verdict = judge(ts, list(recorded.TPS))
    assert verdict.kind == "shifted" and verdict.warmup_polls == 1  # the poll before sysbench started: 0 TPS
    # sysbench went to 6 threads at 22:31:21 and back to 1 at 22:33:51: the first polls after are 31 and 61.
    assert [s.at for s in verdict.shifts] == [ts[31], ts[61]]
    by_hand = [sum(part) / len(part) for part in (recorded.TPS[1:31], recorded.TPS[31:61], recorded.TPS[61:])]
    assert [(s.before, s.after) for s in verdict.shifts] == [pytest.approx((by_hand[0], by_hand[1])),
                                                              pytest.approx((by_hand[1], by_hand[2]))]
    assert shifted(verdict) == "TPS from 64.7 to 129.7 at 22:31:24 (+101 %), to 67.9 at 22:33:54 (-48 %)"


def test_a_stall_shorter_than_a_level_is_left_out_before_the_levels_are_found():
    """Seen live: 4, 1 and 6 threads, a 30 s FLUSH TABLES WITH READ LOCK (6 polls of 5 s), then 6, 3/5 and 2
    threads read "Dips at irregular times", no level change: a level inside the range needs a tenth of its 84
    polls (8), so the 6 stalled polls could only join a level, whose mean then stood over a tenth of its
    neighbours' (no stall), and every change failed against levels mixed so.

    By hand, the stall's polls 44-49 (0, under a tenth of the 8 polls on both sides) left out: 300 x 8, 150 x 18,
    then 340 x 18 and 315 x 16, one level (7 % apart, under the 10 % of a change): 11,160 / 34 = 328.24, then
    257 x 18 from poll 66."""
    tps = runs((300.0, 8), (150.0, 18), (340.0, 18), (0.0, 6), (315.0, 16), (257.0, 18))
    verdict = judge([at(i) for i in range(84)], tps, warmup=0)
    assert verdict.kind == "shifted"
    assert [(s.at, round(s.before, 2), round(s.after, 2)) for s in verdict.shifts] == [
        (at(8), 300.0, 150.0), (at(26), 150.0, 328.24), (at(66), 328.24, 257.0)]
    assert verdict.stalls == ((at(44), at(49)),)


def loads_between_stalls() -> list[float]:
    """Seen in a third audit, 90 polls of 10 s: 354 TPS, a stall of 39 polls, 150 TPS, then 0 to the range's end,
    each load's change caught mid-poll. Each level carries a +/- 3 % jitter that sums to 0 over its 10 polls."""
    high, low = (10.6, -7.1, 3.5, -10.6, 3.6), (4.5, -3.0, 1.5, -4.5, 1.5)
    return ([354.0 + high[i % 5] for i in range(10)] + [300.0] + [0.0] * 39
            + [120.0] + [150.0 + low[i % 5] for i in range(10)] + [30.0] + [0.0] * 28)


def test_two_loads_parted_by_a_long_stall_are_two_levels_not_their_mean():
    """The page read "Level change: TPS from 246.2 to 0.4": the stall was left out, but a straight line fitted
    over the 354s and the 150s across the stall's 6.5 minutes ran through both and fitted them about as well as
    two levels, so their change failed and one level of both stood before the stall at the end.

    By hand, polls 11-49 are the stall (0, under a tenth of both sides), left out; the old level is 10 x 354 and
    the 300, which caught the stall mid-poll: 57.5 under the median of the 354s (357.5), more than a quarter of
    the way to the next level's median (151.5; 206 / 4 = 51.5) and more than 3 x their SD (7.75), it counts in
    neither level: 3,540 / 10 = 354.0. The new level is the 120 and 10 x 150 from poll 50 (the 120 lies away from
    the 354s: it stays), 1,620 / 11 = 147.27 (-58.4 %); then the 30 and 28 x 0 from poll 61, 30 / 29 = 1.03
    (-99.3 %; the 30 is a fifth of the way to 151.5: it stays), under a tenth of the level before: the range
    ends stalled."""
    verdict = judge([at(i) for i in range(90)], loads_between_stalls())
    assert verdict.kind == "shifted" and verdict.warmup_polls == 0
    assert [(s.at, s.before, s.after) for s in verdict.shifts] == [
        (at(50), pytest.approx(354.0), pytest.approx(1620 / 11)), (at(61), pytest.approx(1620 / 11),
                                                                       pytest.approx(30 / 29))]
    assert verdict.stalls == ((at(11), at(49)),)
    # Poll 50 is 500 s after 09:00:00, poll 61 610 s; the stall runs from 110 s to 490 s.
    assert shifted(verdict) == "TPS from 354.0 to 147.3 at 09:08:20 (-58 %), to 1.0 at 09:10:10 (-99 %)"
    assert levels_said(verdict) == (
        "Two levels, not a drift: the load or a setting changed at 09:08:20 UTC (mark it as an annotation to keep "
        "it); each level is read on its own; the polls from 09:01:50 to 09:08:10 UTC are a stall (under a tenth "
        "of the levels on both sides), left out of the levels; the dips table lists it; then TPS fell to under a "
        "tenth of its level at 09:10:10 UTC and stayed there to the range's end: a stall still going (a lock "
        "held, a full disk) or the load stopped; the dips table lists it")


def test_the_stability_page_names_both_loads_around_a_long_stall(admin_client, db):
    server = make_server("parted")
    start, polls = recent_polls(90)
    write_rates(server, polls, loads_between_stalls())
    part = page_verdict(admin_client, server, start, polls[-1])
    # As the pure test above: the new levels from the 51st and the 62nd poll, the stall the 12th to the 50th.
    assert (f"Level changes: TPS from 354.0 to 147.3 at {polls[50]:%H:%M:%S} (-58 %), "
            f"to 1.0 at {polls[61]:%H:%M:%S} (-99 %)") in part
    assert (f"the polls from {polls[11]:%H:%M:%S} to {polls[49]:%H:%M:%S} UTC are a stall (under a tenth of the "
            "levels on both sides), left out of the levels") in part


def loads_around_an_outage() -> list[float | None]:
    """loads_between_stalls() with no poll read during its stall (None): the monitor or the server was down."""
    return [None if 11 <= i <= 49 else v for i, v in enumerate(loads_between_stalls())]


def test_two_loads_parted_by_an_outage_are_two_levels_not_their_mean():
    """The same polls as around the long stall, but no poll was read in its place: the polls missing were left out
    of the levels, but those after them kept their times, so a line across the outage's 6.5 minutes fitted the
    354s and the 150s as well as two levels, and the page read one level of both: "TPS from 248.2 to 1.0 (-100 %)"
    (3,840 + 1,620 = 5,460 over 22 polls = 248.18, then 30 / 29 = 1.03).

    By hand, as around the stall: 3,540 / 10 = 354.0, then 1,620 / 11 = 147.27 from poll 50 (-58.4 %), then
    30 / 29 = 1.03 from poll 61 (-99.3 %). No stall is named: no poll read one; the dips table lists the outage."""
    verdict = judge([at(i) for i in range(90)], loads_around_an_outage())
    assert verdict.kind == "shifted" and verdict.warmup_polls == 0
    assert [(s.at, s.before, s.after) for s in verdict.shifts] == [
        (at(50), pytest.approx(354.0), pytest.approx(1620 / 11)), (at(61), pytest.approx(1620 / 11),
                                                                       pytest.approx(30 / 29))]
    assert verdict.stalls == ()
    assert shifted(verdict) == "TPS from 354.0 to 147.3 at 09:08:20 (-58 %), to 1.0 at 09:10:10 (-99 %)"


def test_the_stability_page_names_both_loads_around_an_outage(admin_client, db):
    """Polls 12 to 49 (of 90, 10 s apart) were never read; the 50th measured its delta over the outage, which the
    TPS line leaves out (an average over it): the line's points are those the pure test above reads."""
    server = make_server("outage")
    start, polls = recent_polls(90)
    read = [(t, rate) for i, (t, rate) in enumerate(zip(polls, loads_around_an_outage(), strict=True))
            if rate is not None or i == 49]
    write_samples([Sample(server.pk, "global_status", t, (t - before).total_seconds(),
                          {"tps": round((rate or 0.0) * (t - before).total_seconds())}, frozenset({"tps"}))
                   for (before, _), (t, rate) in zip([(start, None), *read], read, strict=False)])
    part = page_verdict(admin_client, server, start, polls[-1])
    # As the pure test above: the new levels from the 51st and the 62nd poll.
    assert (f"Level changes: TPS from 354.0 to 147.3 at {polls[50]:%H:%M:%S} (-58 %), "
            f"to 1.0 at {polls[61]:%H:%M:%S} (-99 %)") in part
    assert "are a stall" not in part


def test_a_four_poll_stall_ending_the_range_is_left_out_of_the_last_level():
    """By hand: 40 polls at 100 (99 and 101 in turn), 40 at 200 (198 and 202), then 4 at 0 to the range's end.
    The 4 zeros (too few for a level: 5 at the range's end) are under a tenth of the 200s before them: left out,
    the levels are 100 and 200, changed at poll 40. Before, they joined the last 202 in a level of 5 polls, 40.4:
    "100 -> 199.9 -> 40.4" (the 200s less that poll: 7,798 / 39 = 199.9)."""
    values = [99.0, 101.0] * 20 + [198.0, 202.0] * 20 + [0.0] * 4
    verdict = judge([at(i) for i in range(84)], values, warmup=0)
    assert verdict.kind == "shifted"
    assert [(s.at, s.before, s.after) for s in verdict.shifts] == [(at(40), pytest.approx(100), pytest.approx(200))]
    assert verdict.stalls == ((at(80), at(83)),)
    # Poll 80 is 800 s after 09:00:00, poll 83 830 s.
    assert levels_said(verdict) == (
        "Two levels, not a drift: the load or a setting changed at 09:06:40 UTC (mark it as an annotation to keep "
        "it); each level is read on its own; the polls from 09:13:20 to 09:13:50 UTC, the range's last, are a stall "
        "(under a tenth of the level before them), left out of the levels; the dips table lists it")


# Seen live (livecheck, MariaDB 10.11, polls of 3 s): sysbench oltp_read_write, 2 threads for 210 s, a FLUSH TABLES
# WITH READ LOCK held from 90 s to 120 s. The run's 69 per-poll rates as /export.csv gave them: the lock caught
# mid-poll (245.7), 9 polls at 0, the load back mid-poll (609.9); the two polls before it sagged on the busy host.
FTWRL_30S = [612.463, 629.371, 540.36, 486.162, 589.667, 817.606, 735.177, 801.468, 1069, 872.461, 747.667, 520,
             659.574, 688.251, 669, 496.839, 787.646, 723.724, 677.774, 875.542, 852.716, 748.084, 798.47, 804.878,
             952.619, 989.333, 794.94, 622.83, 523.333, 245.667, 0, 0, 0, 0, 0, 0, 0, 0, 0, 609.927, 1027.67,
             1077.03, 968.656, 903.763, 861.621, 803.869, 670, 682.227, 781, 775.408, 582.333, 612.184, 609.578,
             648.414, 450.267, 648.622, 738.868, 718.094, 572.524, 514.628, 413.966, 462.512, 419.333, 484.495,
             462.87, 763.351, 846.307, 576.435, 500]


def test_a_stall_whose_level_took_in_the_polls_around_it_is_a_stall():
    """The page read "Level changes: TPS from 738.5 to 116.0 at 08:41:36 (-84 %), to 672.9 (+480 %)": 9 polls at 0
    are a level (a level needs 6 of 69 polls), and segmentation's middle level took in the 3 polls before them
    (622.8, 523.3, 245.7: it can split no further, each side needing 6), so its mean, 1,391.83 / 12 = 116.0, stood
    over a tenth of its neighbours (67.3) and no stall was found. By hand: the polls 30-38 are the stall (0, under a
    tenth of the load on both sides), left out of the levels; the load before and after it is one level (738.5
    and 672.9 by the page, 9 % apart, under a change's 10 %)."""
    three = [T0 + timedelta(seconds=3 * i) for i in range(len(FTWRL_30S))]
    verdict = judge(three, FTWRL_30S, warmup=0)
    assert not verdict.shifts
    # One dip, the lock's 30 s: from where poll 29's reading began (245.7, under half the median 648.6) to the last
    # 0, poll 38.
    assert verdict.kind == "dips" and [(d.start, d.end) for d in verdict.dips] == [(three[28], three[38])]


def mid_load() -> list[float]:
    """A range cut in a load: 240 TPS for 13 polls, a stall of 5 at 0, then 120 for 40 and 300 for 40."""
    return [240.0] * 13 + [0.0] * 5 + [120.0] * 40 + [300.0] * 40


def test_a_range_that_starts_mid_load_at_a_higher_level_has_no_warm_up():
    """Its first third (32 polls) lay under the band of the 300s, and read as a warm-up: "TPS from 120.0 to 300.0".
    By hand: 240 to 120 at the 19th poll (09:03:00), the stall (polls 14 to 18) left out, then 300 at the 59th."""
    verdict = judge([at(i) for i in range(98)], mid_load())
    assert verdict.warmup_polls == 0 and verdict.kind == "shifted"
    assert shifted(verdict) == "TPS from 240.0 to 120.0 at 09:03:00 (-50 %), to 300.0 at 09:09:40 (+150 %)"
    assert verdict.stalls == ((at(13), at(17)),)


def test_a_run_that_starts_on_lower_levels_finds_no_warm_up():
    """The run's warm-up found from its polls: is_first_level looked at the first level alone, which ends before
    the 32 polls cut (the 240s), and called them a warm-up."""
    values = mid_load()
    assert warmup_found(at(0) - timedelta(seconds=10), [(at(i), v) for i, v in enumerate(values)]) == 0


def test_the_stability_page_reads_the_levels_of_a_range_cut_mid_load(admin_client, db):
    server = make_server("mid-load")
    start, polls = recent_polls(98)
    write_rates(server, polls, mid_load())
    part = page_verdict(admin_client, server, start, polls[-1]).replace("&#x27;", "'")
    assert (f"Level changes: TPS from 240.0 to 120.0 at {polls[18]:%H:%M:%S} (-50 %), "
            f"to 300.0 at {polls[58]:%H:%M:%S} (+150 %)") in part
    assert f"the polls from {polls[13]:%H:%M:%S} to {polls[17]:%H:%M:%S} UTC are a stall" in part
    assert f"no warm-up found: from the range's first poll at {polls[0]:%H:%M:%S} UTC" in part


def stall_after_warm_up() -> list[float]:
    """A run's polls: 5 at 50 TPS (its warm-up, 40 s, and the poll read at its start), a stall of 3 at 0, then 120 for
    40 and 300 for 40."""
    return [50.0] * 5 + [0.0] * 3 + [120.0] * 40 + [300.0] * 40


def test_a_short_stall_right_after_a_given_warm_up_is_a_stall_not_part_of_the_first_level():
    """The 3 polls at 0 joined the first level: "TPS from 111.6 to 300.0" (4,800 over 43 polls). By hand: 120 to
    300 at the 49th poll (09:08:00), the stall the polls at 09:00:50 to 09:01:10."""
    verdict = judge([at(i) for i in range(88)], stall_after_warm_up(), warmup=5)
    assert verdict.kind == "shifted"
    assert shifted(verdict) == "TPS from 120.0 to 300.0 at 09:08:00 (+150 %)"
    assert levels_said(verdict) == (
        "Two levels, not a drift: the load or a setting changed at 09:08:00 UTC (mark it as an annotation to keep "
        "it); each level is read on its own; the polls from 09:00:50 to 09:01:10 UTC, the first judged, are a stall "
        "(under a tenth of the level after them), left out of the levels; the dips table lists it")


def test_the_run_report_leaves_a_stall_right_after_the_warm_up_out_of_the_first_level(admin_client, db):
    server = make_server("stalled-start")
    start, polls = recent_polls(88)
    write_rates(server, polls, stall_after_warm_up())
    run = Run.objects.create(name="stalled-start", server=server, started_at=polls[0], ended_at=polls[-1],
                             warmup_seconds=40)
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    part = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", body.split('id="verdict"')[1].split("</section>")[0]))
    assert f"Level change: TPS from 120.0 to 300.0 at {polls[48]:%H:%M:%S} (+150 %)" in part
    assert (f"the polls from {polls[5]:%H:%M:%S} to {polls[7]:%H:%M:%S} UTC, the first judged, are a stall (under "
            "a tenth of the level after them)") in part
    assert f"judged from the poll at {polls[5]:%H:%M:%S} UTC" in part


def idle_then_load() -> list[float]:
    """Seen live on a MariaDB counting explicit transactions only under an autocommit load: 36 polls of 0 TPS
    but one that counted a transaction (0.2 TPS), 83 more at 0, 30 at 10 TPS, then 10 at 0 (the load ended)."""
    return [0.0] * 12 + [0.2] + [0.0] * 23 + [0.0] * 83 + [10.0 + JITTER[i % 4] for i in range(30)] + [0.0] * 10


def test_polls_at_0_after_an_idle_level_are_no_stall():
    """The page read "TPS from 0.0 to 10.0 at ... (+185,903 %)" and named the 83 polls at 0 "a stall (under a
    tenth of the levels on both sides)": a tenth of a level of one transaction in 36 polls (0.2 / 36 = 0.0056
    TPS). Nothing ran there for TPS to stop from: the median poll of that level counted nothing.

    By hand, the load ran 10 TPS from poll 119 (the jitter sums to 0 over its 30 polls) after 119 polls holding
    0.2 TPS once, 0.2 / 119 = 0.00168 TPS; it ended at poll 149 and the range ends on 10 polls at 0, under a
    tenth of 10. No percentage is said from a level that reads 0.0."""
    verdict = judge([at(i) for i in range(159)], idle_then_load())
    assert verdict.stalls == ()
    assert [(s.at, s.before, s.after) for s in verdict.shifts] == [
        (at(119), pytest.approx(0.2 / 119), pytest.approx(10.0)), (at(149), pytest.approx(10.0), 0.0)]
    # Poll 119 is 1,190 s after 09:00:00, poll 149 1,490 s.
    assert shifted(verdict) == "TPS from 0.0 to 10.0 at 09:19:50, to 0.0 at 09:24:50 (-100 %)"
    assert "a stall (under a tenth of the levels on both sides)" not in levels_said(verdict)
