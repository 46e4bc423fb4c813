"""Turn verdicts into state: open, update and resolve events, and queue their e-mails.

Each rule is evaluated under a row lock taken with SKIP LOCKED, so any number of
evaluators can run at once: a rule another one is evaluating is skipped, and the
partial unique index on open events guards the rest.
"""

import logging
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from alerts import kinds, outbox
from alerts.builtin import ensure_builtin_rules
from alerts.models import Event, Notification, Rule
from alerts.verdicts import Cleared, Verdict, stale_after
from collectors.models import ServerHealth
from servers.models import Server
from store import query
from store.outage import DOWN_ERRORS

log = logging.getLogger(__name__)


def evaluate_all(now: datetime | None = None) -> int:
    """Evaluate every enabled rule; return how many events changed state."""
    now = now or timezone.now()
    ensure_builtin_rules()
    close_orphans(now)
    changes = 0
    for rule_id, failing in Rule.objects.filter(enabled=True).values_list("id", "failing"):
        try:
            changes += evaluate_rule(rule_id, now)
        except DOWN_ERRORS:
            raise  # not this rule's fault: the task says so once (store.outage)
        except ValidationError as exc:
            # Saved before a check the form now makes: judged as it is it would never fire, or fire on every server.
            why = f"cannot be judged as saved: {' '.join(exc.messages)}"
            if failing != why:
                log.warning("alert rule %s %s", rule_id, why)
            mark_failing(rule_id, why, now)
        except Exception as exc:
            # One broken rule (or a store hiccup) must not silence the others; the Alerts page says it fails.
            log.exception("alert rule %s: evaluation failed", rule_id)
            mark_failing(rule_id, f"{type(exc).__name__}: {exc}", now)
        else:
            if failing:
                Rule.objects.filter(id=rule_id).update(failing="", failing_since=None)
    return changes


def mark_failing(rule_id: int, why: str, now: datetime) -> None:
    """Kept on the rule: a rule that shows 'enabled' but never judges anything must say so where it is listed."""
    Rule.objects.filter(id=rule_id, failing="").update(failing_since=now)
    Rule.objects.filter(id=rule_id).update(failing=why[:1000])


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
        rule.clean()  # what the form refuses is not judged either
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
            if verdict.unknown:
                continue
            if verdict.firing:
                changes += fire(rule, server_id, event, verdict, now)
            elif event is not None:
                changes += resolve(rule, event, verdict, now)
        for (sid, key), event in open_events.items():
            if sid == server_id and key not in keys:
                changes += resolve(rule, event, None, now, stopped=True)  # e.g. a source no longer polled
    return changes


def fire(rule: Rule, server_id: int, event: Event | None, v: Verdict, now: datetime) -> int:
    opened = event is None
    if event is None:
        event = Event(rule=rule, server_id=server_id, key=v.key, since=v.since or now, opened_at=now)
    event.value, event.growth, event.detail, event.growth_span = v.value, v.growth, v.detail, v.growth_span
    event.peak = peak(rule, event, v, now)
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


def peak(rule: Rule, event: Event, v: Verdict, now: datetime) -> float | None:
    """The largest value during the event: of every sample, not only those the evaluations (every 15 s) read."""
    seen = [x for x in (event.peak, v.value, sample_peak(rule, event, now)) if x is not None]
    return max(seen, default=None)


PEAK_RECHECK = timedelta(minutes=5)  # twenty evaluations (every 15 s)


def sample_peak(rule: Rule, event: Event, now: datetime) -> float | None:
    """The largest sample of the rule's metric from the event's start to now (a counter's: per-poll rate)."""
    if not rule.metric:
        return None
    # event.peak holds the samples before: only the last few minutes are read again (a long incident at
    # 1 s polls would read thousands of points every 15 s), enough to cover evaluations missed meanwhile.
    since = event.since if event.peak is None else max(event.since, now - PEAK_RECHECK)
    # The delta stamped at `since` began before it; within() drops those that began before its start.
    found = query.within(event.server_id, [rule.metric], since - stale_after(event.server), now)
    values = [x for s in found if s.metric == rule.metric
              for t, x in zip(s.ts, s.values, strict=True) if x is not None and t >= since]
    return max(values, default=None)


def cooldown_over(rule: Rule, event: Event, now: datetime) -> bool:
    """At most one firing e-mail per rule, server and key within the cooldown."""
    recent = Event.objects.filter(rule=rule, server_id=event.server_id, key=event.key,
                                  notified_at__gt=now - timedelta(minutes=rule.cooldown_minutes))
    return not recent.exclude(pk=event.pk).exists()


def resolve(rule: Rule, event: Event, v: Verdict | None, now: datetime, notify: bool = True,
            stopped: bool = False) -> int:
    event.resolved_at = now
    found = last_poll(event, now) if stopped else cleared(event, v, now)
    event.ended_at, event.data_stopped = (found.at, found.data_stopped) if found else (now, False)
    if v is not None:
        event.value, event.growth, event.detail, event.growth_span = v.value, v.growth, v.detail, v.growth_span
        event.peak = peak(rule, event, v, now)  # polls since the last evaluation count too
    event.save()
    if notify and event.notified_at is not None:
        outbox.enqueue(Notification.RESOLVED, event, rule, now)
    return 1


def cleared(event: Event, v: Verdict | None, now: datetime) -> Cleared | None:
    """When the data shows the condition stopped holding; None where it cannot tell (the rule or its scope
    was edited: the condition held at every poll as the event started it), and the end is now."""
    found = v.cleared(event.since) if v is not None and v.cleared is not None else None
    return found if found is not None and event.since < found.at <= now else None


def last_poll(event: Event, now: datetime) -> Cleared | None:
    """What its verdict no longer names (a source or channel no longer polled) ended with the server's last
    successful poll: the last one that could have seen it."""
    at = ServerHealth.objects.filter(server_id=event.server_id).values_list("last_success_at", flat=True).first()
    return Cleared(at, data_stopped=True) if at is not None and event.since < at <= now else None
