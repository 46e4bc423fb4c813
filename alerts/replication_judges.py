"""Judges of replication: a replica's lag above X, its I/O or SQL thread stopped."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from alerts.health_judges import health_rows
from alerts.numbers import fmt
from alerts.verdicts import (
    DEFAULT_LOOKBACK,
    MAX_POINTS,
    Cleared,
    RulePoints,
    Verdict,
    clean,
    clearing,
    run_start,
    stale_after,
)
from servers.models import Server
from store import query

if TYPE_CHECKING:  # the kinds table (alerts.kinds) refers to the functions here
    from alerts.models import Rule

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
    by_id = {s.id: s for s in servers}
    answer = {}
    for server_id, channels in replica_points(servers, REPLICA_LAG, now).items():
        answer[server_id] = [lag_verdict(rule, by_id[server_id], channel, p) for channel, p in sorted(channels.items())]
    return answer


def lag_verdict(rule: Rule, server: Server, channel: str, p: RulePoints) -> Verdict:
    value, firing = p.values[-1], p.values[-1] > rule.threshold
    detail = (f"{channel_label(channel)} on {server.name}: {fmt(value)} s behind its source "
              f"({'above' if firing else 'not above'} {fmt(rule.threshold)} s)")
    since = run_start(p, lambda v: v > rule.threshold) if firing else None
    cleared = None if firing else (lambda _started: clearing(p, lambda v: v > rule.threshold, stale_after(server)))
    return Verdict(firing, key=channel, value=value, since=since, detail=detail, cleared=cleared)


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
        return Verdict(False, key=channel, detail=f"{channel_label(channel)} on {server.name}: both threads run",
                       cleared=lambda _started: both_running(io, sql, stale_after(server)))
    since = min(run_start(p, lambda v: not v) for p in (io, sql) if not p.values[-1])
    detail = (f"{channel_label(channel)} on {server.name}: {' and '.join(stopped)} thread not running"
              + (f"; {note}" if note else ""))
    return Verdict(True, key=channel, value=len(stopped), since=since, detail=detail)


def both_running(io: RulePoints, sql: RulePoints, gap: timedelta) -> Cleared | None:
    """The first poll from which both threads ran: the later of the two threads' restarts."""
    found = [c for c in (clearing(p, lambda v: not v, gap) for p in (io, sql)) if c is not None]
    return max(found, key=lambda c: c.at, default=None)
