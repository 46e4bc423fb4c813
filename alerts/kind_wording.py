"""The rule kinds' names and wording: what the model, the form and the e-mails say of each kind.

Apart from alerts.kinds (which kind judges what) so that the model needs nothing of the judging:
the Rule model, the kinds table and the conditions import in one direction only.
"""

from collections.abc import Callable
from typing import Any

from alerts.numbers import fmt, fmt_minutes

THRESHOLD, GROWTH, SUSTAINED = "threshold", "growth", "sustained"
UNREACHABLE, SOURCE_FAILING = "unreachable", "source_failing"
REPLICA_LAG, REPLICA_STOPPED = "replica_lag", "replica_stopped"

HISTORY = "history_list_length"
# What a history length threshold must be, in the same words wherever one is given (a rule's X, the purge page's
# threshold=): above 0 or less, every server with any undo log is over it at once.
NOT_A_HISTORY_LENGTH = "must be a positive history length"


def history_threshold_problem(kind: str, metric: str, threshold: float | None) -> str:
    """Why a rule's X cannot be its history length threshold ("" when it can, or when it is no such rule)."""
    if kind != THRESHOLD or metric.strip() != HISTORY or threshold is None or threshold > 0:
        return ""
    return f"X={fmt(threshold)} {NOT_A_HISTORY_LENGTH}: history_list_length is never below 0 (e.g. 100000)."


def rising_text(rule: Any) -> str:
    text = f"{rule.metric} rising for {fmt_minutes(rule.window_minutes)} in a row"
    return text + (f" by more than {fmt(rule.threshold)}" if rule.threshold else "")


# kind -> (label in the form's menu, the condition in words for pages and e-mails)
WORDING: dict[str, tuple[str, Callable[[Any], str]]] = {
    THRESHOLD: ("Value above X", lambda r: f"{r.metric} above {fmt(r.threshold)}"),
    GROWTH: ("Grows more than X within W minutes",
             lambda r: f"{r.metric} grows more than {fmt(r.threshold)} within {fmt_minutes(r.window_minutes)}"),
    SUSTAINED: ("Rising for W minutes in a row (by more than X)", rising_text),
    UNREACHABLE: ("Server unreachable for X polls",
                  lambda r: f"server unreachable for {fmt(r.threshold)} polls in a row"),
    SOURCE_FAILING: ("A collector source failing",
                     lambda r: f"source {r.source} failing" if r.source else "any collector source failing"),
    REPLICA_LAG: ("Replica lag above X seconds", lambda r: f"replica lag above {fmt(r.threshold)} s"),
    REPLICA_STOPPED: ("Replication stopped (I/O or SQL thread not running)",
                      lambda r: "replication I/O or SQL thread stopped"),
}


def describe(rule: Any) -> str:
    return WORDING[rule.kind][1](rule)
