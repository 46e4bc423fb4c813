"""Judges of a metric's values: above a threshold, growing within a window, rising for a while (from the store)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from itertools import accumulate
from typing import TYPE_CHECKING

from alerts.numbers import fmt, fmt_growth, fmt_span
from alerts.verdicts import (
    MAX_POINTS,
    Cleared,
    Judge,
    RulePoints,
    Verdict,
    clean,
    clearing,
    run_start,
    stale_after,
    window,
)
from servers.models import Server
from store import levels, query
from store.query import TICK

if TYPE_CHECKING:  # the kinds table (alerts.kinds) refers to the functions here
    from alerts.models import Rule


def metric_verdicts(judge: Judge) -> Callable[[Rule, list[Server], datetime], dict[int, list[Verdict]]]:
    """The verdicts of a rule kind over a metric's recent points, judged by judge."""
    def verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
        if not servers:
            return {}
        slack = max(stale_after(s) for s in servers)
        start, span = now - window(rule) - slack, window(rule)
        found = query.series([s.id for s in servers], [rule.metric], start, now, max_points=MAX_POINTS)
        points = {s.server_id: clean(s) for s in found if s.metric == rule.metric}
        answer = {}
        for server in servers:
            p = within_reach(points.get(server.id), now - span - stale_after(server))
            if p is None or not p.ts or p.ts[-1] < now - stale_after(server):
                continue  # no recent data: unknown
            verdict = judge(rule, server, p, now, span)
            if verdict is not None:
                answer[server.id] = [verdict]
        return answer

    return verdicts


def within_reach(p: RulePoints | None, start: datetime) -> RulePoints | None:
    """The points from start on: the read reaches back by the slowest server's staleness, but a reading
    older than this server's own reach would anchor a fast server's growth before its outage."""
    if p is None:
        return None
    i = bisect_left(p.ts, start)
    return RulePoints(p.kind, p.ts[i:], p.values[i:])


def anchor_index(p: RulePoints, at: datetime) -> int | None:
    """The last point at or before `at`: where growth over a window is measured from."""
    found = None
    for i, t in enumerate(p.ts):
        if t > at:
            break
        found = i
    return found


def growth_over(rule: Rule, server: Server, p: RulePoints, now: datetime,
                span: timedelta) -> tuple[float, datetime, datetime]:
    """The growth over the window up to now and the two readings it is measured between (the first later
    than the window's start when the data starts later: a counter's then includes its first delta)."""
    if p.kind == "counter":
        return counter_growth(rule, server, p, now - span, now)
    start = anchor_index(p, now - span)
    start = 0 if start is None else start
    return p.values[-1] - p.values[start], p.ts[start], p.ts[-1]


# Intervals are kept in milliseconds: the reading a delta began at is known to a millisecond.
INTERVAL_PRECISION = timedelta(milliseconds=1)


def counter_growth(rule: Rule, server: Server, p: RulePoints, window_start: datetime,
                   now: datetime) -> tuple[float, datetime, datetime]:
    """Counter at the last poll minus counter at the anchor (counter_anchor): the deltas counted after it.

    Read from the poll times, not the rate points: a delta spanning a missed poll has no rate point,
    yet the poll that stored it read the counter, and is the anchor if it is the last at the window's start.
    """
    reach = window_start - stale_after(server)
    found = query.counter_samples(server.id, [rule.metric], reach, now).get(rule.metric)
    if not found or not found.ts:
        return 0.0, p.ts[-1], p.ts[-1]
    began = [found.began(i) for i in range(len(found.ts))]
    anchor = counter_anchor([*found.ts, *began], window_start, reach)
    total = sum(d for d, b in zip(found.deltas, began, strict=True) if b >= anchor - INTERVAL_PRECISION)
    return float(total), anchor, found.ts[-1]


def counter_anchor(polls: list[datetime], window_start: datetime, reach: datetime) -> datetime:
    """The last poll at or before the window's start; with none since reach (an outage spans the start,
    or the data begins later), the first poll after reach: an older reading no longer speaks for the start."""
    near = [t for t in polls if t >= reach]
    before = [t for t in near if t <= window_start]
    return max(before) if before else min(near)


def covered_text(grown_from: datetime, grown_to: datetime) -> str:
    """The span a growth figure covers: between the two readings it is computed from, which is not the
    window when the data starts later or the last poll is late."""
    return fmt_span(grown_to - grown_from)


def judge_threshold(rule: Rule, server: Server, p: RulePoints, now: datetime, span: timedelta) -> Verdict:
    value = p.values[-1]
    growth, grown_from, grown_to = growth_over(rule, server, p, now, span)
    firing = value > rule.threshold
    since = threshold_since(rule, server, p) if firing else None
    covered = covered_text(grown_from, grown_to)
    detail = (f"{rule.metric} on {server.name} = {fmt(value)} ({'above' if firing else 'not above'} "
              f"{fmt(rule.threshold)}); {fmt_growth(growth)} in the last {covered}")
    cleared = None if firing else (lambda started: threshold_cleared(rule, server, p, started))
    return Verdict(firing, value=value, growth=growth, since=since, detail=detail, growth_span=covered,
                   cleared=cleared)


def threshold_cleared(rule: Rule, server: Server, p: RulePoints, started: datetime) -> Cleared | None:
    """clearing(); where every point read is at or below X (evaluations stopped for longer than they
    read), the polls before are read too, back to the last above X (not before the event's start)."""
    gap = stale_after(server)
    found = clearing(p, lambda v: v > rule.threshold, gap)
    if found is None or found.data_stopped or found.at != p.ts[0]:
        return found
    first = p.ts[0]
    for t, v in query.polls_back(server.id, rule.metric, started, first - TICK, READ_BACK, reach=gap):
        if v > rule.threshold:
            return Cleared(t, data_stopped=True) if first - t > gap else Cleared(first)
        first = t
    return Cleared(first)


def threshold_since(rule: Rule, server: Server, p: RulePoints) -> datetime:
    """run_start(); where the value was above X at the first point read, the polls before are read too."""
    since = run_start(p, lambda v: v > rule.threshold)
    if since != p.ts[0] or p.values[0] <= rule.threshold:
        return since
    for t, v in polls_back(server, rule.metric, since - TICK):
        if v <= rule.threshold:
            break
        since = t
    return since


READ_BACK = timedelta(hours=1)  # the first read back; each next one reaches 24 times further


def polls_back(server: Server, metric: str, end: datetime) -> Iterator[tuple[datetime, float]]:
    """The metric's full-resolution values (a counter's: per-poll rates) up to end, newest first, back to
    the oldest poll kept. A generator: the caller stops at the first value below X, usually in the first read."""
    return query.polls_back(server.id, metric, levels.available_since(levels.FULL), end, READ_BACK,
                            reach=stale_after(server))


def judge_growth(rule: Rule, server: Server, p: RulePoints, now: datetime, span: timedelta) -> Verdict:
    value = p.values[-1]
    growth, grown_from, grown_to = growth_over(rule, server, p, now, span)
    firing = growth > rule.threshold
    since = growth_since(rule, server, p, now, span) if firing else None
    covered = covered_text(grown_from, grown_to)
    detail = (f"{rule.metric} on {server.name} changed by {fmt_growth(growth)} in "
              f"{covered} (limit {fmt(rule.threshold)}); now {fmt(value)}")
    cleared = None if firing else (lambda _started: growth_cleared(rule, server, p.kind, now, span))
    return Verdict(firing, value=value, growth=growth, since=since, detail=detail, growth_span=covered,
                   cleared=cleared)


def growth_since(rule: Rule, server: Server, p: RulePoints, now: datetime, span: timedelta) -> datetime:
    """The first poll of the trailing run whose growth over the window ending at it is above X: when the
    condition began to hold (not the window's start). Followed back one window at most."""
    ts, values = readings(rule, server, p.kind, now - 2 * span - stale_after(server), now)
    if not ts:
        return p.ts[-1]
    reach, j = stale_after(server), len(ts) - 1
    first = bisect_left(ts, now - span)
    while j > first and growth_at(ts, values, j - 1, span, reach) > rule.threshold:
        j -= 1
    return ts[j]


def growth_cleared(rule: Rule, server: Server, kind: str, now: datetime, span: timedelta) -> Cleared | None:
    """The first poll of the trailing run whose growth over the window ending at it is X or less."""
    ts, values = readings(rule, server, kind, now - 2 * span - stale_after(server), now)
    reach = stale_after(server)
    first = bisect_left(ts, now - span)
    grown = [growth_at(ts, values, j, span, reach) for j in range(first, len(ts))]
    return clearing(RulePoints(kind, ts[first:], grown), lambda g: g > rule.threshold, reach)


def readings(rule: Rule, server: Server, kind: str, start: datetime, end: datetime) -> tuple[list, list]:
    """Gauges as read; counters as running totals of their deltas, from the reading the first delta began at."""
    if kind == "counter":
        found = query.counter_samples(server.id, [rule.metric], start, end).get(rule.metric)
        if not found or not found.ts:
            return [], []
        return [found.began(0), *found.ts], list(accumulate(found.deltas, initial=0))
    series = query.series([server.id], [rule.metric], start, end, max_points=2 * MAX_POINTS)
    p = clean(series[0]) if series else RulePoints(kind, [], [])
    return p.ts, p.values


def growth_at(ts: list[datetime], values: list[float], j: int, span: timedelta, reach: timedelta) -> float:
    """Growth over the window ending at reading j, measured as growth_over() measures it at evaluation."""
    at = ts[j] - span
    i = bisect_right(ts, at) - 1
    if i < 0 or ts[i] < at - reach:
        i += 1  # no reading at the window's start: from the first one inside it
    return values[j] - values[i]


def judge_sustained(rule: Rule, server: Server, p: RulePoints, now: datetime, span: timedelta) -> Verdict | None:
    where = f"{rule.metric} on {server.name}"
    start = anchor_index(p, now - span)
    if start is None:
        return None  # less history than the window: cannot tell yet
    values = p.values[start:]
    rising = all(a <= b for a, b in zip(values, values[1:], strict=False)) and values[-1] - values[0] > rule.threshold
    growth = values[-1] - values[0]
    since = run_start_rising(p) if rising else None
    covered = covered_text(p.ts[start], p.ts[-1])  # less than W when the last poll is late
    detail = (f"{where} {'rising' if rising else 'not rising'} over the last "
              f"{covered}: {fmt_growth(growth)}; now {fmt(values[-1])}")
    cleared = None if rising else (lambda _started: first_fall(p, start, stale_after(server)))
    return Verdict(rising, value=values[-1], growth=growth, since=since, detail=detail, growth_span=covered,
                   cleared=cleared)


def first_fall(p: RulePoints, start: int, gap: timedelta) -> Cleared | None:
    """The first poll in the window lower than the one before: the rise it broke held until then (the last
    evaluation saw no fall in its window). None where it stopped for a growth of X or less instead."""
    for i in range(start + 1, len(p.values)):
        if p.values[i] < p.values[i - 1]:
            stopped = p.ts[i] - p.ts[i - 1] > gap
            return Cleared(p.ts[i - 1], data_stopped=True) if stopped else Cleared(p.ts[i])
    return None


def run_start_rising(p: RulePoints) -> datetime:
    i = len(p.values) - 1
    while i > 0 and p.values[i - 1] <= p.values[i]:
        i -= 1
    return p.ts[i]
