"""One missing privilege fails several sources, read at different polls: their alerts go out as one e-mail
(and their ends as another), not one each."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts import outbox, sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification
from testing.alerts import record_poll, source_rule
from testing.mariadb import free_port

pytestmark = pytest.mark.django_db

NO_PROCESS = {"oldest_trx": "oldest_trx: INNODB_TRX needs the PROCESS privilege",
              "innodb_metrics": "innodb_metrics: missing privilege (you need the PROCESS privilege)"}


def step(server, at, **statuses: str) -> int:
    record_poll(server, at, NO_PROCESS.__getitem__, **statuses)
    evaluate_all(at)
    return sending.send_due(at)


def test_sources_failing_for_one_privilege_are_mailed_together(server, inbox):
    rule, t0 = source_rule(), timezone.now()
    sec = lambda s: t0 + timedelta(seconds=s)  # noqa: E731
    # PROCESS revoked: oldest_trx (every poll) fails at once, innodb_metrics (every 60 s) at its read 50 s on.
    assert step(server, sec(0), oldest_trx="failed") == 0
    assert step(server, sec(50), oldest_trx="failed", innodb_metrics="failed") == 0
    assert step(server, sec(60), oldest_trx="failed") == 1  # the first one's wait is over: both in it
    assert Event.objects.filter(rule=rule, resolved_at=None).count() == 2  # still one alert per source
    assert inbox.subjects() == [f"[SteadyState] FIRING: {rule.name} on {server.name} (2 sources)"]
    text = inbox.text(0)
    assert f"Detail:    {server.name}: source oldest_trx failing: {NO_PROCESS['oldest_trx']}" in text
    since = sec(50).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert f"Also:      {server.name}: source innodb_metrics failing: {NO_PROCESS['innodb_metrics']} " \
           f"(since {since} UTC)" in text
    assert not Notification.objects.filter(event__rule=rule, sent_at=None).exists()

    # Granted again: both clear at the next poll that reads them, one e-mail a minute later.
    assert step(server, sec(120), oldest_trx="ok", innodb_metrics="ok") == 0
    assert step(server, sec(180), oldest_trx="ok") == 1
    assert inbox.subjects()[1:] == [f"[SteadyState] RESOLVED: {rule.name} on {server.name} (2 sources)"]


def test_a_lone_failing_source_is_mailed_alone_after_the_wait(server, inbox):
    rule, t0 = source_rule(), timezone.now()
    assert step(server, t0, oldest_trx="failed") == 0
    assert step(server, t0 + timedelta(seconds=59), oldest_trx="failed") == 0
    assert step(server, t0 + timedelta(seconds=60), oldest_trx="failed") == 1
    assert inbox.subjects() == [f"[SteadyState] FIRING: {rule.name} on {server.name}"]
    assert "Also:" not in inbox.text(0)


def test_a_failed_send_tries_the_gathered_mails_again_together_after_the_backoff(server, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens there: refused
    rule, t0 = source_rule(), timezone.now()
    step(server, t0, oldest_trx="failed", innodb_metrics="failed")
    wait = t0 + outbox.GATHER
    assert sending.send_due(wait) == 0
    mails = Notification.objects.filter(event__rule=rule)
    # One SMTP attempt for the two (not one for each in the same pass), and the same 30 s backoff for both.
    assert sorted(mails.values_list("attempts", flat=True)) == [0, 1]
    assert set(mails.values_list("next_attempt_at", flat=True)) == {wait + sending.BACKOFF}
