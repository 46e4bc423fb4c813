"""The source-failing rule on a server at its defaults: a source off since the first poll is the server's
configuration (its pages say how to turn it on), not an alert; one that ran and then went off still fires.

The polls go through the collectors' own recording (collectors.record), which keeps whether a source ever ran.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification, Rule
from collectors.models import ServerHealth
from testing.alerts import record_poll, source_rule

pytestmark = pytest.mark.django_db

PFS_OFF = "performance_schema is OFF on this server, so pfs_waits has nothing to read"
CONSUMER_OFF = "the performance_schema consumer(s) statements_digest are off"


ERRORS = {"pfs_waits": PFS_OFF, "statements": CONSUMER_OFF}


def poll(server, at, **statuses: str) -> None:
    """One poll of the server as the collectors record it: each source with its status (and an error unless ok)."""
    record_poll(server, at, lambda name: ERRORS.get(name, "boom"), **statuses)


def events(rule: Rule) -> list[tuple[str, bool]]:
    return [(e.key, e.firing) for e in Event.objects.filter(rule=rule).order_by("key")]


def test_it_does_not_alert_for_sources_off_since_the_first_poll(server):
    rule, now = source_rule(), timezone.now()
    for i in range(3):
        poll(server, now + timedelta(seconds=10 * i), pfs_waits="off", statements="off", oldest_trx="failed")
        evaluate_all(now + timedelta(seconds=10 * i))
    # Off from the start: configuration. A source that failed from the start is still a failure.
    assert events(rule) == [("oldest_trx", True)]


def test_it_alerts_once_for_a_source_that_ran_and_then_went_off(server):
    rule, now = source_rule(), timezone.now()
    steps = [dict(pfs_waits="ok", statements="off"), dict(pfs_waits="off", statements="off"),
             dict(pfs_waits="off", statements="off"), dict(pfs_waits="ok", statements="off")]
    seen = []
    for i, statuses in enumerate(steps):
        poll(server, now + timedelta(seconds=10 * i), **statuses)
        evaluate_all(now + timedelta(seconds=10 * i))
        seen.append(events(rule))
    assert seen == [[], [("pfs_waits", True)], [("pfs_waits", True)], [("pfs_waits", False)]]
    mails = list(Notification.objects.filter(event__rule=rule).order_by("id"))
    assert [n.kind for n in mails] == ["firing", "resolved"]
    assert mails[0].context["detail"] == f"{server.name}: source pfs_waits failing: {PFS_OFF}"


def test_it_counts_a_source_that_ran_before_the_upgrade(server):
    """A health entry written before "worked" was kept: its "ok" says the source ran."""
    rule, now = source_rule(), timezone.now()
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now, polls=1, sources={
        "pfs_waits": {"status": "ok", "ok": True, "error": ""},
        "statements": {"status": "off", "ok": False, "error": CONSUMER_OFF}})
    poll(server, now + timedelta(seconds=10), pfs_waits="off", statements="off")
    evaluate_all(now + timedelta(seconds=10))
    assert events(rule) == [("pfs_waits", True)]


def test_it_ends_an_event_opened_for_a_source_off_from_the_start(server):
    """Opened before the rule spared such sources: it resolves (with its mail), and does not open again."""
    rule, now = source_rule(), timezone.now()
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now, polls=1, sources={
        "statements": {"status": "off", "ok": False, "error": CONSUMER_OFF}})
    Event.objects.create(rule=rule, server=server, key="statements", since=now, opened_at=now, notified_at=now,
                         last_notified_at=now)
    for i in (1, 2):
        poll(server, now + timedelta(seconds=10 * i), statements="off")
        evaluate_all(now + timedelta(seconds=10 * i))
    assert events(rule) == [("statements", False)]
    event = Event.objects.get(rule=rule)
    assert event.end == now + timedelta(seconds=10) and "since the server was first polled" in event.detail
    assert list(Notification.objects.filter(event=event).values_list("kind", flat=True)) == ["resolved"]
