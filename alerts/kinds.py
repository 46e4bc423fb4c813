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


# The largest X each counted kind takes: beyond, a rule was saved (X=1e23) that could never fire.
MAX_POLLS = 7 * 24 * 3600  # a week of failed polls at the shortest interval (Server.poll_interval: 1 s)
MAX_LAG_SECONDS = 30 * 24 * 3600  # 30 days: a replica further behind is rebuilt, not waited for


def whole_polls(x: float | None) -> str:
    if x is None or not 1 <= x <= MAX_POLLS or not float(x).is_integer():
        return (f"For an unreachable rule, X is a whole number of polls from 1 to {MAX_POLLS:,} (a week of polls "
                "every second), e.g. 3.")
    return ""


def seconds_of_lag(x: float | None) -> str:
    if x is None or not 0 <= x <= MAX_LAG_SECONDS:
        return f"For a replica lag rule, X is a number of seconds from 0 to {MAX_LAG_SECONDS:,} (30 days), e.g. 300."
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
