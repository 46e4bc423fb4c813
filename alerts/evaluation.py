"""Turn verdicts into state: open, update and resolve events, and queue their e-mails.

Each rule is evaluated under a row lock taken with SKIP LOCKED, so any number of
evaluators can run at once: a rule another one is evaluating is skipped, and the
partial unique index on open events guards the rest.
"""

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from alerts import kinds, outbox
from alerts.builtin import ensure_builtin_rules
from alerts.conditions import Verdict
from alerts.models import Event, Notification, Rule
from monitor.models import Server
from store.outage import DOWN_ERRORS

log = logging.getLogger(__name__)


def evaluate_all(now: datetime | None = None) -> int:
    """Evaluate every enabled rule; return how many events changed state."""
    now = now or timezone.now()
    ensure_builtin_rules()
    close_orphans(now)
    changes = 0
    for rule_id in Rule.objects.filter(enabled=True).values_list("id", flat=True):
        try:
            changes += evaluate_rule(rule_id, now)
        except DOWN_ERRORS:
            raise  # not this rule's fault: the task says so once (store.outage)
        except Exception:
            # One broken rule (or a store hiccup) must not silence the others.
            log.exception("alert rule %s: evaluation failed", rule_id)
    return changes


def close_orphans(now: datetime) -> None:
    """Events of disabled rules or servers end quietly: nobody asked to hear about them."""
    Event.objects.filter(resolved_at=None).filter(Q(rule__enabled=False) | Q(server__enabled=False)).update(
        resolved_at=now
    )


def servers_in_scope(rule: Rule) -> list[Server]:
    servers = Server.objects.filter(enabled=True)
    if rule.server_id:
        servers = servers.filter(id=rule.server_id)
    elif rule.tag:
        servers = servers.filter(tags__contains=[rule.tag])
    return list(servers)


def evaluate_rule(rule_id: int, now: datetime) -> int:
    with transaction.atomic():
        rule = (Rule.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(id=rule_id, enabled=True).first())
        if rule is None:
            return 0  # another evaluator holds it, or it was disabled meanwhile
        servers = servers_in_scope(rule)
        return apply(rule, kinds.KINDS[rule.kind].verdicts(rule, servers, now), {s.id for s in servers}, now)


def apply(rule: Rule, answer: dict[int, list[Verdict]], scope: set[int], now: datetime) -> int:
    open_events = {(e.server_id, e.key): e for e in rule.events.filter(resolved_at=None)}
    changes = 0
    for (server_id, _key), event in open_events.items():
        if server_id not in scope:
            resolve(rule, event, None, now, notify=False)
            changes += 1
    for server_id, found in answer.items():
        keys = {v.key for v in found}
        for verdict in found:
            event = open_events.get((server_id, verdict.key))
            if verdict.firing:
                changes += fire(rule, server_id, event, verdict, now)
            elif event is not None:
                changes += resolve(rule, event, verdict, now)
        for (sid, key), event in open_events.items():
            if sid == server_id and key not in keys:
                changes += resolve(rule, event, None, now)  # e.g. a source no longer polled
    return changes


def fire(rule: Rule, server_id: int, event: Event | None, v: Verdict, now: datetime) -> int:
    opened = event is None
    if opened:
        event = Event(rule=rule, server_id=server_id, key=v.key, since=v.since or now, opened_at=now)
    event.value, event.growth, event.detail = v.value, v.growth, v.detail
    event.peak = v.value if event.peak is None or v.value is None else max(event.peak, v.value)
    if event.notified_at is None:
        if cooldown_over(rule, event, now):
            event.notified_at = event.last_notified_at = now
            event.save()
            outbox.enqueue(Notification.FIRING, event, rule, now)
            return 1
    elif rule.renotify_minutes and now - event.last_notified_at >= timedelta(minutes=rule.renotify_minutes):
        event.last_notified_at = now
        event.save()
        outbox.enqueue(Notification.REMINDER, event, rule, now)
        return 1
    event.save()
    return int(opened)


def cooldown_over(rule: Rule, event: Event, now: datetime) -> bool:
    """At most one firing e-mail per rule, server and key within the cooldown."""
    recent = Event.objects.filter(rule=rule, server_id=event.server_id, key=event.key,
                                  notified_at__gt=now - timedelta(minutes=rule.cooldown_minutes))
    return not recent.exclude(pk=event.pk).exists()


def resolve(rule: Rule, event: Event, v: Verdict | None, now: datetime, notify: bool = True) -> int:
    event.resolved_at = now
    if v is not None:
        event.value, event.growth, event.detail = v.value, v.growth, v.detail
    event.save()
    if notify and event.notified_at is not None:
        outbox.enqueue(Notification.RESOLVED, event, rule, now)
    return 1
