"""Queue e-mails as rows; the sender (sending.py) claims and mails them."""

from datetime import datetime

from alerts.holders import holder_context
from alerts.models import Event, Notification, Rule
from alerts.readings import purge_reading
from alerts.recipients import default_recipients


def snapshot(event: Event, now: datetime) -> dict:
    return {"value": event.value, "peak": event.peak, "growth": event.growth, "growth_span": event.growth_span,
            "detail": event.detail, "at": now.isoformat()}


def enqueue(kind: str, event: Event, rule: Rule, now: datetime) -> Notification:
    context = snapshot(event, now)
    holder = holder_context(kind, event, now)
    if holder is not None:
        context["holder"] = holder
        context["purge_verdict"] = purge_reading(event.server_id, now, _history_threshold(rule))
    return Notification.objects.create(
        event=event, kind=kind, recipients=rule.recipients or default_recipients(),
        context=context, created_at=now, next_attempt_at=now,
    )


def _history_threshold(rule: Rule) -> float:
    """A value rule on the history length is its own threshold; other purge rules use the page's default (0)."""
    return rule.threshold if rule.metric == "history_list_length" and rule.kind == "threshold" else 0.0


def enqueue_test(address: str, now: datetime) -> Notification:
    return Notification.objects.create(kind=Notification.TEST, recipients=[address], created_at=now,
                                       next_attempt_at=now, context={"at": now.isoformat()})
