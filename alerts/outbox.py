"""Queue e-mails and webhook calls as rows; the sender (sending.py) claims and sends them."""

from datetime import datetime, timedelta

from django.conf import settings

from alerts.holders import holder_context
from alerts.models import Event, Notification, Rule
from alerts.readings import purge_reading
from alerts.recipients import default_recipients


def snapshot(event: Event, now: datetime) -> dict:
    return {"value": event.value, "peak": event.peak, "growth": event.growth, "growth_span": event.growth_span,
            "detail": event.detail, "at": now.isoformat()}


# A source-failing e-mail waits this long for the other sources of its server: one missing privilege fails
# several sources, read at different polls (innodb_metrics every 60 s), which went out as one e-mail each.
GATHER = timedelta(seconds=60)
GATHERED_KINDS = (Notification.FIRING, Notification.RESOLVED)


def mail_after(kind: str, rule: Rule, now: datetime) -> datetime:
    return now + GATHER if rule.kind == Rule.SOURCE_FAILING and kind in GATHERED_KINDS else now


# Reminders are e-mails only: a webhook receiver is told when an event opens and when it closes.
HOOKED_KINDS = (Notification.FIRING, Notification.RESOLVED)


def enqueue(kind: str, event: Event, rule: Rule, now: datetime) -> Notification:
    context = snapshot(event, now)
    context.update(condition_then(kind, event, rule))
    holder = holder_context(kind, event, now)
    if holder is not None:
        context["holder"] = holder
        context["purge_verdict"] = purge_reading(event.server_id, now, _history_threshold(rule))
    if rule.webhook_url and kind in HOOKED_KINDS:
        Notification.objects.create(event=event, kind=kind, channel=Notification.WEBHOOK, url=rule.webhook_url,
                                    context=context, created_at=now, next_attempt_at=now)
    return Notification.objects.create(
        event=event, kind=kind, recipients=rule.recipients or default_recipients(),
        context=context, created_at=now, next_attempt_at=mail_after(kind, rule, now),
    )


def condition_then(kind: str, event: Event, rule: Rule) -> dict:
    """The condition the event fired under, kept with every notification of it: the rule may be edited since.

    A reminder or resolution repeats the firing's condition, and says when the rule's has changed
    (editing a rule so that its condition no longer holds resolves the event).
    """
    now_text = rule.condition_text
    firing = (Notification.objects.filter(event=event, kind=Notification.FIRING).order_by("created_at").first()
              if kind != Notification.FIRING else None)
    fired = (firing.context.get("condition") if firing else None) or now_text
    if fired == now_text:
        return {"condition": fired}
    return {"condition": fired, "rule_edited": True, "condition_now": now_text}


def _history_threshold(rule: Rule) -> float:
    """A value rule on the history length is its own threshold; other purge rules use the page's default (0)."""
    return rule.threshold if rule.metric == "history_list_length" and rule.kind == "threshold" else 0.0


def enqueue_test(address: str, now: datetime, by: int | None = None) -> Notification:
    """A test e-mail, with the id of the user who asked for it (test_mails_left counts them)."""
    return Notification.objects.create(kind=Notification.TEST, recipients=[address], created_at=now,
                                       next_attempt_at=now, context={"at": now.isoformat(), "by": by})


def test_mails_left(user_id: int, now: datetime) -> int:
    """How many more test e-mails this user may queue in the hour before now (TEST_EMAILS_PER_HOUR)."""
    sent = Notification.objects.filter(kind=Notification.TEST, created_at__gt=now - timedelta(hours=1),
                                       context__by=user_id).count()
    return max(0, settings.TEST_EMAILS_PER_HOUR - sent)
