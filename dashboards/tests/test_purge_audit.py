"""The purge trend and verdict on the polls of fresh-eyes audit 1 (testing/purge_audit.py), findings 1 and 2.

Expected values are computed here by numpy on the raw polls, or were read off the audit by hand.
"""

from datetime import datetime

import numpy as np
import pytest

from dashboards.analysis.purge_growth import current_trend
from dashboards.analysis.purge_verdict import purge_verdict
from testing.purge_audit import DRAIN_R7, RELEASE_R2

PURGED, ADDED = 1782.0, 1783.0  # the audit's rates after R7's drain: undo records purged, rows updated + deleted


def polls(rows: list[tuple[str, int]]) -> tuple[list[datetime], list[float]]:
    return [datetime.fromisoformat(f"2026-11-26T{t}+00:00") for t, _ in rows], [float(v) for _, v in rows]


def at(ts: list[datetime], hms: str) -> int:
    return next(i for i, t in enumerate(ts) if t.strftime("%H:%M:%S") == hms)


def line(ts: list[datetime], ys: list[float]) -> tuple[float, float]:
    """numpy's least-squares slope (per minute) and the polls' standard deviation around the line (n - 2)."""
    x = np.array([(t - ts[0]).total_seconds() for t in ts])
    b, a = np.polyfit(x, ys, 1)
    return b * 60, float(np.sqrt(np.sum((np.array(ys) - a - b * x) ** 2) / (len(ys) - 2)))


def noise_by_hand(ys: list[float]) -> float:
    d2 = np.diff(ys, n=2)
    return 1.4826 * float(np.median(np.abs(d2 - np.median(d2)))) / 6 ** 0.5


def test_growth_under_the_held_read_view_is_the_hand_slope():
    """10:09:46: the 4 polls since the climb began, 2,354 to 17,378; the audit's hand slope 60,492 / min."""
    ts, ys = polls(RELEASE_R2)
    n = at(ts, "10:09:46") + 1
    trend = current_trend(ts[:n], ys[:n])
    first = at(ts, "10:09:31")
    assert trend.direction == "growing" and trend.since == ts[first] and trend.polls == 4
    assert trend.per_minute == pytest.approx(line(ts[first:n], ys[first:n])[0])
    assert trend.per_minute == pytest.approx(60_492, rel=1e-4)
    assert purge_verdict(ys[n - 1], trend, 20_000, None).kind == "early"  # no holder given: 4 polls prove little


def test_after_the_release_it_reads_flat_never_draining_from_the_peak():
    """77,687 to 897 in one poll, then 0-1,069 for 3 minutes: never "draining 8,168.7 / min ... empty in 2 s"."""
    ts, ys = polls(RELEASE_R2)
    bottom = at(ts, "10:10:56")
    for n in range(bottom + 1, len(ys) + 1):
        trend = current_trend(ts[:n], ys[:n])
        verdict = purge_verdict(ys[n - 1], trend, 20_000, None)
        assert trend.since >= ts[bottom], n  # never across the release
        assert verdict.kind in ("", "flat", "nearly-empty", "turned"), (ts[n - 1], trend, verdict)
        if n == bottom + 1:  # the release's poll: too soon for a pace, the fall itself is the answer
            assert verdict.kind == "turned" and trend.before == 77_687 and ys[n - 1] == 897
    slope, scatter = line(ts[bottom:], ys[bottom:])
    assert trend.since == ts[bottom] and trend.per_minute == pytest.approx(slope)  # -209.9 / min
    assert trend.scatter == pytest.approx(scatter)
    moved = abs(slope) / 60 * (ts[-1] - ts[bottom]).total_seconds()
    assert moved < 4 * scatter and trend.direction == "flat"  # 630 end to end against polls ± 230 around it


def test_after_the_drain_a_bounded_history_is_never_purge_bound():
    """10:23:41-10:25:36: 0-998 around 500, purge keeping up: the page said "Purge-bound" at 5 of these polls."""
    ts, ys = polls(DRAIN_R7)
    bottom, last = at(ts, "10:23:41"), at(ts, "10:25:36")
    for n in range(bottom + 1, last + 2):
        trend = current_trend(ts[:n], ys[:n])
        for rates in ((PURGED, ADDED), (None, ADDED)):
            verdict = purge_verdict(ys[n - 1], trend, 20_000, None, *rates)
            assert verdict.kind in ("", "flat", "nearly-empty", "early", "turned"), (ts[n - 1], trend, verdict)
    n = at(ts, "10:25:31") + 1  # the audit's last "growing 174.0 / min ... Purge-bound"
    trend = current_trend(ts[:n], ys[:n])
    slope, scatter = line(ts[bottom:n], ys[bottom:n])
    assert trend.since == ts[bottom] and trend.per_minute == pytest.approx(slope) and trend.direction == "flat"
    assert trend.noise >= noise_by_hand(ys[bottom:n]) > 150  # at least the segment's own: the page said ± 140


def test_the_audit_noise_of_the_polls_since_the_turn():
    """The audit's 22 polls 10:23:46-10:25:31: noise 278 by the documented estimator, where the page
    said ± 125-150 (10 minutes of polls with the smooth climb in them); the trend there is flat."""
    ts, ys = polls(DRAIN_R7)
    first, last = at(ts, "10:23:46"), at(ts, "10:25:31")
    assert last + 1 - first == 22 and noise_by_hand(ys[first:last + 1]) == pytest.approx(278, abs=0.5)
    trend = current_trend(ts[:last + 1], ys[:last + 1])
    assert trend.direction == "flat"
