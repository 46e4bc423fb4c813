"""Which X a metric rule can never fire sensibly with: one every reading is above from the start.

A counter's per-second rate and its growth are never below 0 (a counter that goes down is a reset, left out:
collectors.delta), nor is any declared gauge but a server's own values (`var:`, `innodb_metrics:`), which are
counts, sizes, times and shares. A rule "above -5" on them fired at once, on every server.
"""

from alerts import kind_wording
from alerts.kind_wording import GROWTH, SUSTAINED, THRESHOLD
from alerts.numbers import fmt
from collectors.metric import COUNTER
from collectors.registry import declared

AS_THE_SERVER_SAYS = "value"  # the unit of var: and innodb_metrics: values, which may be anything


RATE = "a per-second rate"


def never_negative(metric: str) -> str:
    """What the metric is, when its values are never below 0 (RATE, or "in <unit>"); "" when they may be."""
    found = declared(metric)
    if found is None or found.unit == AS_THE_SERVER_SAYS:
        return ""
    return RATE if found.kind == COUNTER else f"in {found.unit}"


def threshold_problem(kind: str, metric: str, threshold: float | None) -> str:
    """Why X can never be meaningful for this rule ("" when it can): the form, the model and the admin say it."""
    if problem := kind_wording.history_threshold_problem(kind, metric, threshold):
        return problem
    if threshold is None or threshold >= 0:
        return ""
    metric, x = metric.strip(), f"X={fmt(threshold)} must be 0 or more"
    what = never_negative(metric)
    if kind == THRESHOLD and what:
        return f"{x}: {metric} ({what}) is never below 0, so every reading is above it."
    if kind == GROWTH and what == RATE:
        return f"{x}: {metric} is a counter, whose growth is never below 0."
    if kind == SUSTAINED:
        return f"{x}: it is the minimum rise (0 = any), and a flat metric rises by 0."
    return ""
