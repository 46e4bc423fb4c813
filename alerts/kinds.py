"""The rule kinds: one row each, from the kind to how it judges and what its form needs.

A new kind is a row here, its name and wording in alerts.kind_wording, and, where it judges
something new, a verdicts function in the judges module of its kind (metric_judges, health_judges,
replication_judges).
"""

from collections.abc import Callable
from dataclasses import dataclass

from alerts import health_judges, metric_judges, replication_judges
from alerts.kind_wording import (
    GROWTH,
    REPLICA_LAG,
    REPLICA_STOPPED,
    SOURCE_FAILING,
    SUSTAINED,
    THRESHOLD,
    UNREACHABLE,
    WORDING,
)


@dataclass(frozen=True)
class RuleKind:
    key: str
    verdicts: Callable  # (rule, servers, now) -> {server id: [Verdict]}; a server left out is unknown
    watches_metric: bool = False
    needs_window: bool = False
    check_threshold: Callable[[float | None], str] = lambda x: ""  # what is wrong with X for this kind

    @property
    def label(self) -> str:  # in the form's kind menu
        return WORDING[self.key][0]


def whole_polls(x: float | None) -> str:
    if x is None or x < 1 or not float(x).is_integer():
        return "For an unreachable rule, X is a whole number of polls, 1 or more."
    return ""


def seconds_of_lag(x: float | None) -> str:
    if x is None or x < 0:
        return "For a replica lag rule, X is a number of seconds, 0 or more (e.g. 300)."
    return ""


KINDS: dict[str, RuleKind] = {
    THRESHOLD: RuleKind(THRESHOLD, metric_judges.metric_verdicts(metric_judges.judge_threshold), watches_metric=True),
    GROWTH: RuleKind(GROWTH, metric_judges.metric_verdicts(metric_judges.judge_growth), watches_metric=True,
                     needs_window=True),
    SUSTAINED: RuleKind(SUSTAINED, metric_judges.metric_verdicts(metric_judges.judge_sustained), watches_metric=True,
                        needs_window=True),
    UNREACHABLE: RuleKind(UNREACHABLE, health_judges.unreachable_verdicts, check_threshold=whole_polls),
    SOURCE_FAILING: RuleKind(SOURCE_FAILING, health_judges.source_verdicts),
    REPLICA_LAG: RuleKind(REPLICA_LAG, replication_judges.replica_lag_verdicts, check_threshold=seconds_of_lag),
    REPLICA_STOPPED: RuleKind(REPLICA_STOPPED, replication_judges.replica_stopped_verdicts),
}
