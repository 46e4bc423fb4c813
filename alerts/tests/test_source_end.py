"""A failing source's alert ends when a read proved the source good again: at the end of the first poll that read it
ok, not at the start of the health row's newest poll (which had not read it yet when it began, or did not run it)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification
from collectors.record import record
from collectors.results import PollResult, SourceResult
from testing.alerts import source_rule

pytestmark = pytest.mark.django_db

DENIED = "innodb_metrics: missing privilege (Access denied; you need the PROCESS privilege)"


def poll(server, at, duration_ms: float, metrics: str | None = None) -> None:
    """A poll that connected: global_status ok, and innodb_metrics (read every 60 s) with its status when it ran."""
    sources = [SourceResult("global_status", "ok")]
    if metrics is not None:
        sources.append(SourceResult("innodb_metrics", metrics, error="" if metrics == "ok" else DENIED))
    record([server], [PollResult(server.id, server.name, at, duration_ms=duration_ms, sources=sources)])


def test_it_ends_at_the_end_of_the_poll_that_read_the_source_ok(server):
    rule, start = source_rule(), timezone.now().replace(microsecond=0)
    poll(server, start, 3.0, "failed")
    evaluate_all(start + timedelta(seconds=1))
    # The grant given: the next poll waited 4.5 s on a busy server before the read came back good.
    poll(server, start + timedelta(seconds=10), 4500.0, "ok")
    evaluate_all(start + timedelta(seconds=15))
    event = Event.objects.get(rule=rule)
    assert not event.firing and event.ended_at == start + timedelta(seconds=14.5)  # 10 s + 4.5 s, not 10 s
    assert [n.kind for n in Notification.objects.filter(event=event).order_by("id")] == ["firing", "resolved"]


def test_a_later_poll_that_did_not_read_the_source_is_not_its_end(server):
    """The evaluations stopped for a while: meanwhile the source was read ok once, and two polls of the other
    sources came after it. The health row's newest poll (start + 40 s) never read the source."""
    rule, start = source_rule(), timezone.now().replace(microsecond=0)
    poll(server, start, 3.0, "failed")
    evaluate_all(start + timedelta(seconds=1))
    poll(server, start + timedelta(seconds=10), 2.0)
    poll(server, start + timedelta(seconds=20), 250.0, "ok")
    poll(server, start + timedelta(seconds=30), 2.0)
    poll(server, start + timedelta(seconds=40), 2.0)
    evaluate_all(start + timedelta(seconds=41))
    event = Event.objects.get(rule=rule)
    assert not event.firing and event.ended_at == start + timedelta(seconds=20.25)
