"""The rule kinds: one row each, from the kind to its condition, its wording and what its form needs.

A new kind is a row here and, where it judges something new, a verdicts function in alerts.conditions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from alerts import conditions
from alerts.numbers import fmt, fmt_minutes

if TYPE_CHECKING:
    from alerts.models import Rule

THRESHOLD, GROWTH, SUSTAINED = "threshold", "growth", "sustained"
UNREACHABLE, SOURCE_FAILING = "unreachable", "source_failing"
REPLICA_LAG, REPLICA_STOPPED = "replica_lag", "replica_stopped"


@dataclass(frozen=True)
class RuleKind:
    label: str  # in the form's kind menu
    describe: Callable[[Rule], str]  # the condition in words, for pages and e-mails
    verdicts: Callable  # (rule, servers, now) -> {server id: [Verdict]}; a server left out is unknown
    watches_metric: bool = False
    needs_window: bool = False
    check_threshold: Callable[[float | None], str] = lambda x: ""  # what is wrong with X for this kind


def whole_polls(x: float | None) -> str:
    if x is None or x < 1 or not float(x).is_integer():
        return "For an unreachable rule, X is a whole number of polls, 1 or more."
    return ""


def seconds_of_lag(x: float | None) -> str:
    if x is None or x < 0:
        return "For a replica lag rule, X is a number of seconds, 0 or more (e.g. 300)."
    return ""


def rising_text(rule: Rule) -> str:
    text = f"{rule.metric} rising for {fmt_minutes(rule.window_minutes)} in a row"
    return text + (f" by more than {fmt(rule.threshold)}" if rule.threshold else "")


KINDS: dict[str, RuleKind] = {
    THRESHOLD: RuleKind(
        "Value above X", lambda r: f"{r.metric} above {fmt(r.threshold)}",
        conditions.metric_verdicts(conditions.judge_threshold), watches_metric=True),
    GROWTH: RuleKind(
        "Grows more than X within W minutes",
        lambda r: f"{r.metric} grows more than {fmt(r.threshold)} within {fmt_minutes(r.window_minutes)}",
        conditions.metric_verdicts(conditions.judge_growth), watches_metric=True, needs_window=True),
    SUSTAINED: RuleKind(
        "Rising for W minutes in a row (by more than X)", rising_text,
        conditions.metric_verdicts(conditions.judge_sustained), watches_metric=True, needs_window=True),
    UNREACHABLE: RuleKind(
        "Server unreachable for X polls", lambda r: f"server unreachable for {fmt(r.threshold)} polls in a row",
        conditions.unreachable_verdicts, check_threshold=whole_polls),
    SOURCE_FAILING: RuleKind(
        "A collector source failing",
        lambda r: f"source {r.source} failing" if r.source else "any collector source failing",
        conditions.source_verdicts),
    REPLICA_LAG: RuleKind(
        "Replica lag above X seconds", lambda r: f"replica lag above {fmt(r.threshold)} s",
        conditions.replica_lag_verdicts, check_threshold=seconds_of_lag),
    REPLICA_STOPPED: RuleKind(
        "Replication stopped (I/O or SQL thread not running)", lambda r: "replication I/O or SQL thread stopped",
        conditions.replica_stopped_verdicts),
}
