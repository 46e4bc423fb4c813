"""The outbox against a real SMTP server: claims, retries, and several workers at once."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.db import connection
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification
from alerts.outbox import enqueue_test
from testing.alerts import history, make_rule
from testing.servers import make_server


def in_threads(count: int, work) -> None:
    """Run work() in `count` threads released at the same instant; each closes its DB connection."""
    barrier, errors = threading.Barrier(count), []

    def run():
        try:
            barrier.wait()
            work()
        except Exception as exc:  # surfaced below: a thread's exception would otherwise vanish
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.django_db
def test_it_mails_a_firing_alert_with_server_rule_value_and_link(inbox):
    server, rule, now = make_server("db-purge"), make_rule(threshold=1000), timezone.now()
    history(server, [900, 1500, 2345], now)
    evaluate_all(now)
    assert sending.send_due(now) == 1
    assert inbox.subjects() == [f"[SteadyState] FIRING: {rule.name} on db-purge (2,345)"]
    text, html = inbox.text(0), inbox.html(0)
    assert "Value:     2,345 history_list_length" in text
    assert "Growth:    +1,445 over 20 s" in text  # 3 polls 10 s apart: 20 s of data, not the 10 min window
    since = (now - timedelta(seconds=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert f"Since:     {since}" in text
    start = (now - timedelta(seconds=10, minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (now + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    link = f"http://steady.example/servers/{server.id}/purge/?from={start}&to={end}"
    assert link in text and link.replace("&", "&amp;") in html
    assert inbox.messages[0]["To"] == "dba@example.com"
    # A rule's name is a sentence of its own ("A collector source is failing"): quoted, the line still reads.
    assert text.startswith(f"The alert “{rule.name}” is firing on db-purge.")


@pytest.mark.django_db
def test_the_resolved_mail_keeps_the_condition_it_fired_under_after_an_edit(inbox):
    server, rule, now = make_server("db-edited"), make_rule(threshold=1), timezone.now()
    history(server, [900, 1500, 2345], now)
    evaluate_all(now)
    rule.threshold = 1_000_000_000
    rule.save()
    history(server, [2400], now + timedelta(seconds=10))
    evaluate_all(now + timedelta(seconds=10))
    assert sending.send_due(now + timedelta(seconds=10)) == 2
    assert [s.split(":")[0] for s in inbox.subjects()] == ["[SteadyState] FIRING", "[SteadyState] RESOLVED"]
    for k in (0, 1):
        assert f"Rule:      {rule.name} (history_list_length above 1)" in inbox.text(k)
    assert "Resolved: the rule was edited (its condition is now history_list_length above 1,000,000,000)." in (
        inbox.text(1))
    assert "the rule was edited" not in inbox.text(0)


@pytest.mark.django_db
def test_it_retries_after_a_refusal(inbox):
    inbox.refuse = 1
    server, now = make_server(), timezone.now()
    make_rule()
    history(server, [500], now)
    evaluate_all(now)
    assert sending.send_due(now) == 0
    n = Notification.objects.get()
    assert (n.attempts, n.sent_at, n.status) == (1, None, "retrying")
    assert n.last_error.startswith("SMTP 451 4.3.0 Mailbox busy")
    assert n.next_attempt_at == now + sending.BACKOFF
    assert sending.send_due(now + timedelta(seconds=5)) == 0  # backing off
    assert sending.send_due(now + sending.BACKOFF) == 1
    assert (inbox.refused, len(inbox.messages)) == (1, 1)
    n.refresh_from_db()
    assert (n.attempts, n.status, n.last_error) == (2, "sent", "")


@pytest.mark.django_db
def test_it_sends_a_mail_whose_sender_died_after_its_claim_expires(inbox):
    now = timezone.now()
    n = enqueue_test("dba@example.com", now)
    assert sending.claim(n.id, now)  # a worker claims it and dies before mailing
    assert sending.send_due(now + timedelta(minutes=1)) == 0
    assert sending.send_due(now + sending.CLAIM + timedelta(seconds=1)) == 1
    assert inbox.subjects() == ["[SteadyState] Test e-mail"]


@pytest.mark.django_db
def test_an_alert_with_no_recipients_waits_and_is_mailed_once_they_are_set(inbox, settings):
    server, now = make_server(), timezone.now()
    make_rule(recipients=[])
    history(server, [500], now)
    evaluate_all(now)
    assert sending.send_due(now) == 0
    n = Notification.objects.get()
    assert n.last_error.startswith("waiting for recipients") and n.status == "queued" and n.attempts == 0
    settings.ALERT_RECIPIENTS = ["oncall@example.com"]  # set, and the services restarted
    assert sending.send_due(now + sending.WAIT_FOR_RECIPIENTS) == 1
    assert inbox.messages[0]["To"] == "oncall@example.com"
    assert Notification.objects.get().status == "sent"


@pytest.mark.django_db
def test_a_bad_recipient_fails_its_mail_with_the_reason_and_the_batch_goes_on(inbox, settings):
    settings.ALERT_RECIPIENTS = ["a@x.com;b@y.com"]  # a semicolon where a comma belongs
    server, now = make_server(), timezone.now()
    make_rule(recipients=[])
    history(server, [500], now)
    evaluate_all(now)
    enqueue_test("dba@example.com", now)
    assert sending.send_due(now) == 1  # the test mail after the bad one still goes out
    bad = Notification.objects.exclude(kind=Notification.TEST).get()
    assert bad.status == "failed" and "invalid recipient(s) a@x.com;b@y.com" in bad.last_error
    assert inbox.subjects() == ["[SteadyState] Test e-mail"]
    assert sending.send_due(now + timedelta(hours=2)) == 0 and bad.attempts == 1


@pytest.mark.django_db(transaction=True)
def test_it_sends_one_mail_per_event_with_two_evaluators_at_once(inbox):
    now = timezone.now()
    servers = [make_server(f"db{i}") for i in range(3)]
    rules = [make_rule(name=f"above {x}", threshold=x) for x in (100, 200)]
    for server in servers:
        history(server, [500], now)

    def evaluate_and_send():
        evaluate_all(now)
        sending.send_due(now)

    in_threads(2, evaluate_and_send)
    assert Event.objects.filter(rule__in=rules).count() == 6
    assert len(inbox.messages) == 6 and len(set(inbox.subjects())) == 6

    later = now + timedelta(seconds=10)
    for server in servers:
        history(server, [50], later)
    in_threads(2, lambda: (evaluate_all(later), sending.send_due(later)))
    assert sorted(s.split(":")[0] for s in inbox.subjects()) == ["[SteadyState] FIRING"] * 6 + [
        "[SteadyState] RESOLVED"] * 6


@pytest.mark.django_db(transaction=True)
def test_it_mails_each_row_once_with_many_senders(inbox):
    now = timezone.now()
    for i in range(20):
        enqueue_test(f"user{i}@example.com", now)
    in_threads(4, lambda: sending.send_due(now))
    assert sorted(m["To"] for m in inbox.messages) == sorted(f"user{i}@example.com" for i in range(20))
    assert Notification.objects.filter(sent_at=None).count() == 0


@pytest.mark.django_db
def test_it_evaluates_and_mails_from_the_beat_task(inbox):
    from alerts.tasks import evaluate_rules

    server = make_server()
    make_rule()
    history(server, [500], timezone.now())
    evaluate_rules()
    evaluate_rules()
    assert len(inbox.messages) == 1 and inbox.subjects()[0].startswith("[SteadyState] FIRING")


@pytest.mark.django_db
def test_it_says_when_a_retried_test_mail_was_queued_and_what_it_went_through(inbox, settings):
    inbox.refuse = 1
    queued = datetime(2026, 1, 31, 12, 0, 5, 750000, tzinfo=UTC)
    enqueue_test("dba@example.com", queued)
    assert sending.send_due(queued) == 0  # refused: retried 30 s later
    assert sending.send_due(queued + sending.BACKOFF) == 1
    # Before, it read "sent at 2026-01-31T12:00:05.750000+00:00 through 127.0.0.1": the queue time, called the
    # send time, and no port (the Alerts page says "Queued (UTC) 2026-01-31 12:00:05").
    said = f"queued at 2026-01-31 12:00:05 UTC, sent through the SMTP server 127.0.0.1:{settings.EMAIL_PORT}."
    assert said in inbox.text(0) and said in inbox.html(0)


@pytest.mark.django_db
def test_it_names_a_backend_that_is_not_smtp_in_the_test_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    now = datetime(2026, 1, 31, 12, 0, 5, tzinfo=UTC)
    enqueue_test("dba@example.com", now)
    assert sending.send_due(now) == 1
    assert "sent through the e-mail backend django.core.mail.backends.locmem.EmailBackend." in mail.outbox[0].body
