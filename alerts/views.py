"""The alerts page: rules, firing and past events, a test e-mail."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from alerts import catalog, emails, outbox, recipients, sparkline
from alerts.builtin import ensure_builtin_rules
from alerts.forms import RuleForm, TestEmailForm
from alerts.models import Event, Notification, Rule
from alerts.numbers import fmt_span
from alerts.tasks import send_notifications
from store import query

log = logging.getLogger(__name__)
PAST_EVENTS = 50


def index(request):
    ensure_builtin_rules()
    events = Event.objects.select_related("rule", "server")
    return render(request, "alerts/index.html", {
        "rules": Rule.objects.select_related("server"),
        "firing": with_units(events.filter(resolved_at=None).order_by("-opened_at")),
        "past": with_units(events.exclude(resolved_at=None).order_by("-resolved_at")[:PAST_EVENTS]),
        "test_form": TestEmailForm(initial={"address": request.user.email}),
        "test_mails": Notification.objects.filter(kind=Notification.TEST).order_by("-created_at")[:5],
        "default_recipients": recipients.default_recipients(),
        "recipients_problem": recipients.setting_problem(),
    })


def with_units(events) -> list[Event]:
    """Events with what their figures are in: a counter's value and peak are rates (per second), its growth
    a count over growth_span; and how long a past one lasted, to the second (timesince says "0 minutes")."""
    found = list(events)
    mails: dict[int, list[str]] = {}
    for n in Notification.objects.filter(event__in=found).order_by("created_at"):
        mails.setdefault(n.event_id, []).append(delivery(n))
    for e in found:
        e.mails = mails.get(e.id, [])  # what became of each e-mail: "sent" only when one was
        e.per_second = emails.per_second(e.server_id, e.rule.metric)
        e.growth_label = e.growth_span or emails.growth_window(e.rule)
        e.lasted = fmt_span(e.held_for) if e.resolved_at and e.held_for is not None else ""
    return found


def delivery(n: Notification) -> str:
    """What became of one e-mail or webhook call, as the Alerts page lists it."""
    said = f"{n.label}: {n.status}"
    if n.channel == Notification.WEBHOOK and n.last_error and n.status != "sent":
        said += f" ({n.last_error})"
    return said


def rule_form(request, rule_id: int | None = None):
    rule = get_object_or_404(Rule, id=rule_id) if rule_id else None
    form = RuleForm(request.POST or None, instance=rule)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"Rule '{saved.name}' saved.")
        return redirect("alerts:index")
    return render(request, "alerts/rule_form.html", {"form": form, "rule": rule,
                                                     "metric_names": catalog.names()})


@require_POST
def rule_toggle(request, rule_id: int):
    rule = get_object_or_404(Rule, id=rule_id)
    rule.enabled = not rule.enabled
    rule.save(update_fields=["enabled"])
    messages.success(request, f"Rule '{rule.name}' {'enabled' if rule.enabled else 'disabled'}.")
    return redirect("alerts:index")


@require_POST
def rule_delete(request, rule_id: int):
    rule = get_object_or_404(Rule, id=rule_id)
    if rule.builtin:
        messages.error(request, f"'{rule.name}' is built in: disable it instead of deleting it.")
    else:
        rule.delete()
        messages.success(request, f"Rule '{rule.name}' deleted, with its events.")
    return redirect("alerts:index")


def event_detail(request, event_id: int):
    event = get_object_or_404(Event.objects.select_related("rule", "server"), id=event_id)
    return render(request, "alerts/event.html", {
        "event": event, "timeline": timeline(event),
        "per_second": emails.per_second(event.server_id, event.rule.metric),
        "lasted": fmt_span(event.held_for) if event.held_for is not None else "",
        **metric_line(event), "width": sparkline.WIDTH, "height": sparkline.HEIGHT,
        "page": emails.event_page(event.rule, event.server_id, event.since - emails.PURGE_BEFORE,
                                  (event.resolved_at or timezone.now()) + emails.PURGE_AFTER),
    })


def timeline(event: Event) -> list[tuple[str, object]]:
    """The event's steps and its notifications as (what, step) rows in time order: the condition stops holding
    at a poll the evaluation reads seconds later, after the e-mails of earlier steps were queued. On a tie, the
    order they happen in (started, opened, stopped, resolved, then the e-mail each queued)."""
    rows: list[tuple[datetime, int, str, object]] = [(event.since, 0, "since", event),
                                                     (event.opened_at, 1, "opened", event)]
    rows += [(event.ended_at, 2, "ended", event)] if event.ended_at else []
    rows += [(event.resolved_at, 3, "resolved", event)] if event.resolved_at else []
    rows += [(n.created_at, 4, "notification", n) for n in event.notifications.order_by("created_at", "id")]
    return [(what, step) for _at, _order, what, step in sorted(rows, key=lambda r: (r[0], r[1]))]


def metric_line(event: Event) -> dict:
    """The metric around the event as an SVG line, with its lowest and highest values."""
    if not event.rule.metric:
        return {}
    end = event.resolved_at or timezone.now()
    try:
        found = query.series([event.server_id], [event.rule.metric], event.since - timedelta(minutes=30), end,
                             max_points=300)
    except Exception:
        log.exception("alerts: reading %s for event %s", event.rule.metric, event.id)
        return {}
    if not found:
        return {}
    return {"line": sparkline.points(found[0].ts, found[0].values), "range": sparkline.value_range(found[0].values)}


@require_POST
def test_email(request):
    form = TestEmailForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.errors["address"][0])
        return redirect("alerts:index")
    if not outbox.test_mails_left(request.user.pk, timezone.now()):
        messages.error(request, f"You have queued {settings.TEST_EMAILS_PER_HOUR} test e-mails in the last hour "
                                "(TEST_EMAILS_PER_HOUR): wait, and check the delivery status of those below.")
        return redirect("alerts:index")
    outbox.enqueue_test(form.cleaned_data["address"], timezone.now(), by=request.user.pk)
    transaction.on_commit(wake_sender)
    messages.success(request, f"Test e-mail to {form.cleaned_data['address']} queued: it goes out within "
                              "15 seconds; its delivery status shows below.")
    return redirect("alerts:index")


def wake_sender() -> None:
    """Ask a worker to send now; if the broker is down, the beat's next evaluation sends it anyway."""
    try:
        send_notifications.apply_async(expires=60, retry=False)
    except Exception as exc:
        log.warning("alerts: could not queue the sender (%s); the next evaluation sends the mail", exc)
