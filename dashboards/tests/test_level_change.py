"""A workload change is a level change, not a drift: the verdict on a TPS line that steps from one level to another.

Seen in a new user's audit: 7.5 minutes of sysbench oltp_read_write at 19.6 TPS, then oltp_write_only at 30.8 TPS,
read "Drifting: TPS 9.39 %/min", and a wait whose rate fell with the new mix read as moving against TPS (-0.82).
"""

import re
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.run_verdict import judge
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
JITTER = (0.4, -0.4, 0.2, -0.2)  # sums to 0 over every 4 polls: each level's mean is its level exactly


def at(i: int) -> datetime:
    return T0 + timedelta(seconds=10 * i)


def stepped(before: float = 19.6, after: float = 30.8, polls: int = 44) -> list[float]:
    return [before + JITTER[i % 4] for i in range(polls)] + [after + JITTER[i % 4] for i in range(polls)]


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
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    polls = [start + timedelta(seconds=10 * i + 0.3) for i in range(1, 89)]
    # Each poll's transactions over its 10 s (a counter's delta, as the collector stores it).
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": round(rate * 10)}, frozenset({"tps"}))
                   for t, rate in zip(polls, stepped(), strict=True)])
    body = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S}", "to": f"{polls[-1] + timedelta(seconds=1):%Y-%m-%dT%H:%M:%S}",
    }).content.decode()
    part = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", body.split('id="verdict"')[1].split("</section>")[0]))
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
