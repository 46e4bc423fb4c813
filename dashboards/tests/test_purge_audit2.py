"""The purge trend and verdict on the polls of fresh-eyes audit 2 (testing/purge_audit2.py), finding 1.

Expected values are computed here by numpy on the raw polls, or were read off the audit by hand.
"""

from datetime import datetime

import numpy as np
import pytest

from dashboards.analysis.purge_growth import REACH, current_trend
from dashboards.analysis.purge_verdict import purge_verdict
from testing.purge_audit2 import NOISY_R9

PURGED, ADDED = 4301.0, 5159.0  # the page's rates at 11:36:57 (undo records purged, rows updated + deleted)


def polls(rows: list[tuple[str, int]]) -> tuple[list[datetime], list[float]]:
    return [datetime.fromisoformat(f"2026-11-26T{t}+00:00") for t, _ in rows], [float(v) for _, v in rows]


def at(ts: list[datetime], hms: str) -> int:
    return next(i for i, t in enumerate(ts) if t.strftime("%H:%M:%S") == hms)


def seen(ts: list[datetime], ys: list[float], n: int) -> tuple[list[datetime], list[float]]:
    """The polls the page reads at poll n - 1: those of the REACH before it."""
    first = next(i for i, t in enumerate(ts) if t >= ts[n - 1] - REACH)
    return ts[first:n], ys[first:n]


def test_the_climb_is_the_hand_slope():
    """From the fall to 0 at 11:34:47 (the demo paused) to 11:38:07: 41 polls, numpy's +30,168 / min, the
    audit's own sampler +30,169 / min over 11:35:14-11:37:37; the page fits the same polls."""
    ts, ys = polls(NOISY_R9)
    first, n = at(ts, "11:34:47"), at(ts, "11:37:57") + 1
    x = np.array([(t - ts[first]).total_seconds() for t in ts[first:n]])
    slope = np.polyfit(x, ys[first:n], 1)[0] * 60
    assert slope == pytest.approx(29_805, abs=1)  # to 98,019 at 11:37:57
    trend = current_trend(*seen(ts, ys, n))
    assert trend.since == ts[first] and trend.direction == "growing" and trend.per_minute == pytest.approx(slope)


def test_a_purge_bound_climb_reads_purge_bound_once_it_has_its_polls():
    """The audit: 16 of 28 reads said "No verdict: no trend now", 2 "Flat … purge keeps up", 4 "Purge-bound".
    From 16 polls after the fall to 0 (11:36:02, the polls the jitter of now is measured on) to the run's
    end, with purge behind DML: growing every poll, purge-bound at all but one (an "early" one at most)."""
    ts, ys = polls(NOISY_R9)
    kinds = []
    for n in range(at(ts, "11:36:02") + 1, at(ts, "11:38:07") + 2):
        trend = current_trend(*seen(ts, ys, n))
        assert trend.direction == "growing", (ts[n - 1], trend)
        kinds.append(purge_verdict(ys[n - 1], trend, 20_000, None, PURGED, ADDED).kind)
    assert len(kinds) == 26 and kinds.count("purge-bound") >= 25 and set(kinds) <= {"purge-bound", "early"}, kinds
