"""The e-mails: one function per kind, bodies rendered from templates/emails/."""

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from alerts.models import Notification, Rule
from alerts.numbers import fmt, fmt_growth, fmt_minutes
from store import catalog

PURGE_BEFORE = timedelta(minutes=30)  # context before the condition started
PURGE_AFTER = timedelta(minutes=5)


def utc(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def page_path(page: str, server_id: int, start: datetime, end: datetime) -> str:
    """A dashboards page of one server over [start, end], by its URL name (alerts never import dashboards)."""
    query = urlencode({"from": utc(start), "to": utc(end)}, safe=":")
    return reverse(f"dashboards:{page}", args=[server_id]) + "?" + query


def purge_path(server_id: int, start: datetime, end: datetime) -> str:
    """The dashboards' purge-lag view of one server over [start, end]."""
    return page_path("purge", server_id, start, end)


def purge_url(server_id: int, start: datetime, end: datetime) -> str:
    return settings.SITE_URL + purge_path(server_id, start, end)


# Metrics whose events link to the purge page; the rest go to replication or stability (docs/alerts.md).
PURGE_METRICS = ("history_list_length", "trx_", "innodb_metrics:purge", "innodb_metrics:trx_")


def event_page(rule, server_id: int, start: datetime, end: datetime) -> tuple[str, str]:
    """(what the link shows, its path) for an event of this rule over [start, end]."""
    metric = rule.metric or ""
    if metric.startswith(PURGE_METRICS):
        return "Purge lag for this time range", purge_path(server_id, start, end)
    if metric.startswith("replica."):
        return "Replication for this time range", page_path("replication", server_id, start, end)
    what = "at the outage" if rule.kind == Rule.UNREACHABLE else "for this time range"
    return f"The server's stability {what}", page_path("stability", server_id, start, end)


def message(name: str, recipients: list[str], context: dict) -> EmailMultiAlternatives:
    subject = " ".join(render_to_string(f"emails/{name}-subject.html", context).split())
    text = render_to_string(f"emails/{name}-body-text.html", context)
    html = render_to_string(f"emails/{name}-body-html.html", context)
    mail = EmailMultiAlternatives(subject, text, to=recipients)
    mail.attach_alternative(html, "text/html")
    return mail


def alert_context(n: Notification, others: Sequence[Notification] = ()) -> dict:
    event, snap = n.event, n.context
    resolved = n.kind == Notification.RESOLVED
    # A resolution's time is the data's (the first poll at which the condition no longer held), not the queue's.
    at = event.end if resolved and event.end else datetime.fromisoformat(snap["at"])
    return {
        "n": n, "event": event, "rule": event.rule, "server": event.server,
        "condition": snap.get("condition") or event.rule.condition_text, "rule_edited": bool(snap.get("rule_edited")),
        "condition_now": snap.get("condition_now", ""), "detail": snap.get("detail", ""),
        "value": fmt(snap.get("value")), "peak": fmt(snap.get("peak")), "growth": fmt_growth(snap.get("growth")),
        "growth_span": snap.get("growth_span") or growth_window(event.rule),
        "since": utc(event.since), "at": utc(at),
        "duration": str(timedelta(seconds=round((at - event.since).total_seconds()))),  # rounded, as the pages
        "data_stopped": resolved and event.data_stopped, **page_link(event, at),
        "event_url": f"{settings.SITE_URL}/alerts/events/{event.id}/",
        "has_metric": bool(event.rule.metric), "per_second": per_second(event.server_id, event.rule.metric),
        "holder": holder_facts(snap.get("holder")), "resolved": resolved,
        "purge_verdict": snap.get("purge_verdict", ""), "others": [other_facts(m) for m in others],
    }


def other_facts(n: Notification) -> dict:
    """An event mailed with another of the same rule and server (sources failing for one missing privilege)."""
    return {"key": n.event.key, "detail": n.context.get("detail", ""), "since": utc(n.event.since)}


def page_link(event, end: datetime) -> dict:
    label, path = event_page(event.rule, event.server_id, event.since - PURGE_BEFORE, end + PURGE_AFTER)
    return {"page_label": label, "page_url": settings.SITE_URL + path}


def growth_window(rule) -> str:
    """What a growth covered in e-mails queued before the span was kept: the rule's window."""
    return fmt_minutes(rule.window_minutes) if rule.window_minutes else "10 min"


def per_second(server_id: int, metric: str) -> bool:
    """A counter's value and peak are rates (its growth is a count): the e-mail says "per second"."""
    if not metric:
        return False
    return any(m.counter for m in catalog.matching(catalog.server_metrics([server_id]), [metric]))


def holder_facts(holder: dict | None) -> dict | None:
    """The holder of the context with its times as the e-mail prints them (UTC, h:mm:ss)."""
    if not holder or holder.get("none"):
        return holder
    times = {key: utc(datetime.fromisoformat(holder[key])) if holder.get(key) else None
             for key in ("started_at", "seen_at", "ended_at")}
    return {**holder, **times, "held": str(timedelta(seconds=round(holder["held_s"])))}


def firing_message(n: Notification, others: Sequence[Notification] = ()) -> EmailMultiAlternatives:
    return message("alert-firing", n.recipients, alert_context(n, others))


def reminder_message(n: Notification, others: Sequence[Notification] = ()) -> EmailMultiAlternatives:
    return message("alert-reminder", n.recipients, alert_context(n, others))


def resolved_message(n: Notification, others: Sequence[Notification] = ()) -> EmailMultiAlternatives:
    return message("alert-resolved", n.recipients, alert_context(n, others))


SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


def test_message(n: Notification, others: Sequence[Notification] = ()) -> EmailMultiAlternatives:
    # The queue time, as the Alerts page's "Queued (UTC)" says it: a mail that was retried goes out later.
    queued = datetime.fromisoformat(n.context["at"]) if n.context.get("at") else n.created_at
    context = {"site_url": settings.SITE_URL, "queued": f"{queued.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC",
               "transport": transport()}
    return message("alert-test", n.recipients, context)


def transport() -> str:
    """What the e-mails went through: the SMTP server and port, or the backend when it is not SMTP."""
    if settings.EMAIL_BACKEND == SMTP_BACKEND:
        return f"the SMTP server {settings.EMAIL_HOST}:{settings.EMAIL_PORT}"
    return f"the e-mail backend {settings.EMAIL_BACKEND}"


BUILDERS = {
    Notification.FIRING: firing_message,
    Notification.REMINDER: reminder_message,
    Notification.RESOLVED: resolved_message,
    Notification.TEST: test_message,
}


def build(n: Notification, others: Sequence[Notification] = ()) -> EmailMultiAlternatives:
    """The e-mail of n, telling of the others too (notifications of the same kind, rule and server)."""
    return BUILDERS[n.kind](n, others)
