"""A source failing before its server went away is still failing when it comes back: the polls that could not
run it (the connection failed) say nothing about it, and must neither end its event nor mail "resolved"."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification
from collectors.record import record
from collectors.results import PollResult, SourceResult
from testing.alerts import record_poll, source_rule

pytestmark = pytest.mark.django_db

DENIED = "innodb_metrics: missing privilege (Access denied; you need the PROCESS privilege)"


def poll(server, at, **statuses: str) -> None:
    """A poll that connected: global_status ok, the sources named with their status (innodb_metrics, read every
    60 s, is left out of the polls between its reads)."""
    record_poll(server, at, lambda _: DENIED, **statuses)


def down(server, at) -> None:
    """A poll that could not connect: every source "not polled", as collectors.poll records it."""
    sources = [SourceResult(name, "not polled", error=f"{server.name}: {name}: not polled, no connection")
               for name in ("global_status", "innodb_metrics")]
    record([server], [PollResult(server.id, server.name, at, connect_error=f"{server.name}: cannot connect",
                                 sources=sources)])


def test_a_server_restart_leaves_a_failing_source_failing(server):
    rule, start = source_rule(), timezone.now()
    steps = [lambda at: poll(server, at, innodb_metrics="failed"),
             lambda at: down(server, at),  # the server restarts
             lambda at: poll(server, at),  # back; innodb_metrics not due in this poll
             lambda at: poll(server, at, innodb_metrics="failed"),  # read again: the privilege is still missing
             lambda at: poll(server, at, innodb_metrics="ok")]  # granted
    seen = []
    for i, step in enumerate(steps):
        at = start + timedelta(seconds=10 * i)
        step(at)
        evaluate_all(at)
        seen.append([(e.key, e.firing) for e in Event.objects.filter(rule=rule).order_by("id")])
    assert seen == [[("innodb_metrics", True)]] * 4 + [[("innodb_metrics", False)]]
    # One event from the first failing read to the read that found it working: one firing, one resolved mail.
    assert [n.kind for n in Notification.objects.filter(event__rule=rule).order_by("id")] == ["firing", "resolved"]
    assert Event.objects.get(rule=rule).ended_at == start + timedelta(seconds=40)
