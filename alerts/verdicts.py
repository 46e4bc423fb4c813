"""What a rule's judges answer: a verdict per server and key (the key names a part of the server, e.g. a source).

A server missing from a judge's answer is *unknown* (stale data, mid-way failures): its events
keep their state rather than flap. The judges: metric_judges, health_judges, replication_judges.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from servers.models import Server

if TYPE_CHECKING:  # the kinds table (alerts.kinds) refers to the functions here
    from alerts.models import Rule

DEFAULT_LOOKBACK = timedelta(minutes=10)  # growth shown beside a threshold's value
MAX_POINTS = 5000  # enough to see every poll of a 1 h window at 1 s


@dataclass(frozen=True)
class Cleared:
    """When a condition stopped holding, as the data shows."""

    at: datetime  # the first poll at which it no longer held; the last poll at which it did when data stopped
    data_stopped: bool = False  # no poll for longer than the server's staleness after the last at which it held


@dataclass(frozen=True)
class Verdict:
    firing: bool
    key: str = ""
    value: float | None = None
    growth: float | None = None
    since: datetime | None = None
    detail: str = ""
    growth_span: str = ""  # what the growth covers: the window, or the data's own span where it is shorter
    # For a verdict that does not fire: when the condition stopped holding, given when it started. Called
    # only when an event resolves (some judges read the store for it, and most verdicts resolve nothing).
    cleared: Callable[[datetime], Cleared | None] | None = field(default=None, compare=False)
    # The part was not read (its server could not be reached): its event keeps its state, as a server
    # missing from the answer does, rather than end as a part no longer polled.
    unknown: bool = False


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


def clean(series) -> RulePoints:
    pairs = [(t, float(v)) for t, v in zip(series.ts, series.values, strict=True) if v is not None]
    return RulePoints(series.kind, [t for t, _ in pairs], [v for _, v in pairs])


def run_start(p: RulePoints, holds) -> datetime:
    """When the trailing run of points for which holds(value) began."""
    i = len(p.values) - 1
    while i > 0 and holds(p.values[i - 1]):
        i -= 1
    return p.ts[i]


def clearing(p: RulePoints, holds, gap: timedelta) -> Cleared | None:
    """The first point of the trailing run for which holds(value) is false; where the point before it is
    more than gap earlier, the data stopped: the last point at which it held. None while it still holds."""
    i = len(p.values) - 1
    if i < 0 or holds(p.values[i]):
        return None
    while i > 0 and not holds(p.values[i - 1]):
        i -= 1
    if i > 0 and p.ts[i] - p.ts[i - 1] > gap:
        return Cleared(p.ts[i - 1], data_stopped=True)
    return Cleared(p.ts[i])
