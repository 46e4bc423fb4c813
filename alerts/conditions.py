"""Whether a rule's condition holds on each server, read from the store and ServerHealth.

A verdict per server and key (the key names a part of the server, e.g. a source).
A server missing from the answer is *unknown* (stale data, mid-way failures): its
events keep their state rather than flap.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import TYPE_CHECKING

from django.db.models import Count, Min

from alerts.numbers import fmt, fmt_growth, fmt_span
from collectors.models import PollRecord, ServerHealth
from collectors.status import is_failing
from servers.models import Server
from store import levels, query

if TYPE_CHECKING:  # the model's kinds table (alerts.kinds) refers to the functions here
    from alerts.models import Rule

DEFAULT_LOOKBACK = timedelta(minutes=10)  # growth shown beside a threshold's value
MAX_POINTS = 5000  # enough to see every poll of a 1 h window at 1 s


@dataclass(frozen=True)
class Verdict:
    firing: bool
    key: str = ""
    value: float | None = None
    growth: float | None = None
    since: datetime | None = None
    detail: str = ""
    growth_span: str = ""  # what the growth covers: the window, or the data's own span where it is shorter


@dataclass(frozen=True)
class RulePoints:
    """One metric's recent points on one server, as a rule judges them."""

    kind: str  # "counter" or "gauge"
    ts: list[datetime]
    values: list[float]


def window(rule: Rule) -> timedelta:
    return timedelta(minutes=rule.window_minutes) if rule.window_minutes else DEFAULT_LOOKBACK


def stale_after(server: Server) -> timedelta:
    # Three missed polls (at least a minute) and the latest value no longer speaks for now.
    return timedelta(seconds=max(3 * server.poll_interval, 60))


Judge = Callable[["Rule", Server, RulePoints, datetime, timedelta], "Verdict | None"]


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


def clean(series) -> RulePoints:
    pairs = [(t, float(v)) for t, v in zip(series.ts, series.values, strict=True) if v is not None]
    return RulePoints(series.kind, [t for t, _ in pairs], [v for _, v in pairs])


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


TICK = timedelta(microseconds=1)
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
    return Verdict(firing, value=value, growth=growth, since=since, detail=detail, growth_span=covered)


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
    return Verdict(firing, value=value, growth=growth, since=since, detail=detail, growth_span=covered)


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
    return Verdict(rising, value=values[-1], growth=growth, since=since, detail=detail, growth_span=covered)


def run_start(p: RulePoints, holds) -> datetime:
    """When the trailing run of points for which holds(value) began."""
    i = len(p.values) - 1
    while i > 0 and holds(p.values[i - 1]):
        i -= 1
    return p.ts[i]


def run_start_rising(p: RulePoints) -> datetime:
    i = len(p.values) - 1
    while i > 0 and p.values[i - 1] <= p.values[i]:
        i -= 1
    return p.ts[i]


def health_rows(servers: list[Server]) -> dict:
    return {h.server_id: h for h in ServerHealth.objects.filter(server_id__in=[s.id for s in servers])}


def unreachable_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    answer, health = {}, health_rows(servers)
    for server in servers:
        h = health.get(server.id)
        if h is None or 0 < h.consecutive_failures < rule.threshold:
            continue  # never polled, or failing but not for long enough to fire nor recovered
        answer[server.id] = [unreachable_verdict(server, h) if h.consecutive_failures
                             else Verdict(False, value=0, detail=f"{server.name} answers again")]
    return answer


def unreachable_verdict(server: Server, h: ServerHealth) -> Verdict:
    """Since the first failed poll of the run; where the poll history no longer holds it, the detail
    names the last successful poll instead, which is all that is known."""
    failures, first = h.consecutive_failures, first_failure(h)
    detail = (f"{server.name} ({server.address}): {failures} polls in a row failed"
              + (f", the first at {utc_text(first)}" if first else f"; {last_success_text(h)}")
              + f"; last error: {h.last_error or 'none'}")
    return Verdict(True, value=failures, since=first or h.last_success_at or h.last_poll_at, detail=detail)


def first_failure(h: ServerHealth) -> datetime | None:
    """The first failed poll of the current run, if the poll history (a ring) still holds every one."""
    failed = PollRecord.objects.filter(server_id=h.server_id, ok=False)
    if h.last_success_at:
        failed = failed.filter(started_at__gt=h.last_success_at)
    found = failed.aggregate(n=Count("id"), first=Min("started_at"))
    return found["first"] if found["n"] == h.consecutive_failures else None


def last_success_text(h: ServerHealth) -> str:
    if h.last_success_at is None:
        return "never polled successfully"
    return f"last successful poll at {utc_text(h.last_success_at)}"


def utc_text(t: datetime) -> str:
    return f"{t.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def source_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    answer, health = {}, health_rows(servers)
    for server in servers:
        h = health.get(server.id)
        if h is None or h.consecutive_failures:
            continue  # unreachable: the unreachable rule speaks, sources are unknown
        answer[server.id] = [source_verdict(server, name, state, h.last_poll_at)
                             for name, state in sorted((h.sources or {}).items())
                             if not rule.source or name == rule.source]
    return answer


def source_verdict(server: Server, name: str, state: dict, polled_at) -> Verdict:
    ok = not is_failing(state)
    detail = (f"{server.name}: source {name} ok" if ok
              else f"{server.name}: source {name} failing: {state.get('error') or 'no error text'}")
    return Verdict(not ok, key=name, since=None if ok else polled_at, detail=detail)


# Replication (collectors' source "replication"): one verdict per channel, keyed by its name.
REPLICA_LAG, REPLICA_IO, REPLICA_SQL = "replica.lag_s", "replica.io_running", "replica.sql_running"


def channel_of(metric: str) -> str:
    return metric.partition(":")[2]


def replica_points(servers: list[Server], metric: str, now: datetime) -> dict[int, dict[str, RulePoints]]:
    """server id -> channel -> recent points of one replica.* metric (fresh ones only: else unknown)."""
    if not servers:
        return {}
    slack = max(stale_after(s) for s in servers)
    found = query.series([s.id for s in servers], [metric, metric + ":*"], now - DEFAULT_LOOKBACK - slack, now,
                         max_points=MAX_POINTS)
    by_id = {s.id: s for s in servers}
    answer: dict[int, dict[str, RulePoints]] = {}
    for series in found:
        p = clean(series)
        if p.ts and p.ts[-1] >= now - stale_after(by_id[series.server_id]):
            answer.setdefault(series.server_id, {})[channel_of(series.metric)] = p
    return answer


def channel_label(channel: str) -> str:
    return f"channel '{channel}'" if channel else "replication"


def replica_lag_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    """Lag above X seconds, per channel; a channel whose lag is NULL (a thread stopped) is unknown."""
    names = {s.id: s.name for s in servers}
    answer = {}
    for server_id, channels in replica_points(servers, REPLICA_LAG, now).items():
        answer[server_id] = [lag_verdict(rule, names[server_id], channel, p) for channel, p in sorted(channels.items())]
    return answer


def lag_verdict(rule: Rule, server_name: str, channel: str, p: RulePoints) -> Verdict:
    value, firing = p.values[-1], p.values[-1] > rule.threshold
    detail = (f"{channel_label(channel)} on {server_name}: {fmt(value)} s behind its source "
              f"({'above' if firing else 'not above'} {fmt(rule.threshold)} s)")
    since = run_start(p, lambda v: v > rule.threshold) if firing else None
    return Verdict(firing, key=channel, value=value, since=since, detail=detail)


def replica_stopped_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    """An I/O or SQL thread not running, per channel; the detail quotes the state and errors the source saw."""
    io, sql, health = replica_points(servers, REPLICA_IO, now), replica_points(servers, REPLICA_SQL, now), None
    answer = {}
    for server in servers:
        channels = sorted(set(io.get(server.id, {})) & set(sql.get(server.id, {})))
        if not channels:
            continue
        health = health if health is not None else health_rows(servers)
        note = replication_note(health.get(server.id))
        answer[server.id] = [stopped_verdict(server, c, io[server.id][c], sql[server.id][c], note) for c in channels]
    return answer


def replication_note(h) -> str:
    return ((h.sources or {}).get("replication") or {}).get("note", "") if h is not None else ""


def stopped_verdict(server: Server, channel: str, io: RulePoints, sql: RulePoints, note: str) -> Verdict:
    stopped = [name for name, p in (("I/O", io), ("SQL", sql)) if not p.values[-1]]
    if not stopped:
        return Verdict(False, key=channel, detail=f"{channel_label(channel)} on {server.name}: both threads run")
    since = min(run_start(p, lambda v: not v) for p in (io, sql) if not p.values[-1])
    detail = (f"{channel_label(channel)} on {server.name}: {' and '.join(stopped)} thread not running"
              + (f"; {note}" if note else ""))
    return Verdict(True, key=channel, value=len(stopped), since=since, detail=detail)
