"""The figures of the alert e-mails are those of the raw samples: the peak of every poll, a counter's
rate said per second, and the resolved e-mail naming the holder its firing e-mail named (real SMTP)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.models import TrxHolder
from servers.models import Server
from store.ingest import write_samples
from store.sample import Sample
from testing.alerts import history, make_rule
from testing.servers import make_server

pytestmark = pytest.mark.django_db

POLL = 5  # seconds between polls; the evaluations run every 15 s and read only the newest


def commits(server: Server, deltas: list[int], end: datetime) -> None:
    """Com_commit deltas, one every POLL seconds, the last one at `end`."""
    start = end - timedelta(seconds=POLL * (len(deltas) - 1))
    write_samples([Sample(server.id, "global_status", start + timedelta(seconds=POLL * i), POLL,
                          {"Com_commit": d}, counters=frozenset({"Com_commit"})) for i, d in enumerate(deltas)])


def cycle(now: datetime) -> None:
    evaluate_all(now)
    sending.send_due(now)


def mail(inbox, starts: str) -> str:
    found = [inbox.text(i) for i, s in enumerate(inbox.subjects()) if s.startswith(f"[SteadyState] {starts}")]
    assert len(found) == 1, inbox.subjects()
    return found[0]


def line(text: str, starts: str) -> str:
    return next(row for row in text.splitlines() if row.startswith(starts))


def utc(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_it_mails_a_counters_peak_rate_between_evaluations_per_second(inbox):
    server, now = make_server(poll_interval=POLL), timezone.now()
    rule = make_rule(name="Commits above 100/s", metric="Com_commit", threshold=100, renotify_minutes=0.25)
    commits(server, [250, 600, 650], now)  # 50, 120, 130 per second
    cycle(now)
    firing = mail(inbox, "FIRING")
    assert inbox.subjects()[0].endswith("(130/s)")
    assert "Value:     130 Com_commit per second" in firing and "Peak:      130 per second" in firing

    commits(server, [876, 700, 753], now + timedelta(seconds=15))  # 175.2, 140, 150.6 per second
    cycle(now + timedelta(seconds=15))
    assert Event.objects.get(rule=rule).peak == 876 / POLL  # the poll between two evaluations
    reminder = mail(inbox, "STILL FIRING")
    assert "Value:     150.60 Com_commit per second" in reminder
    assert "Peak:      175.20 per second" in reminder
    assert "per second" not in line(reminder, "Growth:")  # a count of commits
    html = inbox.html(1)
    assert "<b>150.60</b> Com_commit per second" in html and "<td>175.20 per second</td>" in html

    commits(server, [1000, 100, 100], now + timedelta(seconds=30))  # 200 per second, then 20: cleared
    cycle(now + timedelta(seconds=30))
    resolved = mail(inbox, "RESOLVED")
    assert "Value:     20 Com_commit per second" in resolved
    assert "Peak:      200 per second" in resolved  # polled after the last firing evaluation, before it cleared


def test_it_mails_a_gauges_peak_between_evaluations_plainly(inbox):
    server, now = make_server(poll_interval=POLL), timezone.now()
    rule = make_rule(threshold=100, renotify_minutes=0.25)
    history(server, [90, 120, 130], now, step=POLL)
    cycle(now)
    history(server, [527, 522, 300], now + timedelta(seconds=15), step=POLL)
    cycle(now + timedelta(seconds=15))
    assert Event.objects.get(rule=rule).peak == 527
    reminder = mail(inbox, "STILL FIRING")
    assert line(reminder, "Value:") == "Value:     300 history_list_length"
    assert line(reminder, "Peak:") == "Peak:      527"
    assert "per second" not in reminder and inbox.subjects()[1].endswith("(300)")


def holder(server: Server, thread_id: int, who: tuple[str, str], started_at: datetime) -> TrxHolder:
    return TrxHolder.objects.create(server=server, thread_id=thread_id, trx_key=f"{thread_id}/1", user=who[0],
                                    host=who[1], state="RUNNING, Sleep", isolation="REPEATABLE-READ",
                                    statement="SELECT 1", idle=True, started_at=started_at, seen_at=started_at)


def test_the_resolved_mails_name_the_firing_mails_holder_after_a_reminder_named_another(inbox):
    server, now = make_server(), timezone.now()
    above = make_rule(name="History above 100", threshold=100, renotify_minutes=1)
    grows = make_rule(name="History grows 50 in 1 min", kind=Rule.GROWTH, threshold=50, window_minutes=1,
                      renotify_minutes=1)
    first = holder(server, 16, ("root", "localhost"), now - timedelta(minutes=4))
    history(server, [0] * 7 + [300], now)  # 300 above 100, +300 within the minute
    cycle(now)
    assert len(inbox.messages) == 2 and all("thread 16, root@localhost" in inbox.text(i) for i in range(2))

    ended = now + timedelta(seconds=30)  # the first poll that no longer saw thread 16
    TrxHolder.objects.filter(pk=first.pk).update(seen_at=ended - timedelta(seconds=10), ended_at=ended)
    holder(server, 13, ("stress", "127.0.0.1"), now + timedelta(seconds=10))
    history(server, [310, 320, 330, 340, 350, 360], now + timedelta(seconds=60))
    cycle(now + timedelta(seconds=60))  # both still firing: the reminders name who holds purge now
    reminders = [inbox.text(i) for i, s in enumerate(inbox.subjects()) if "STILL FIRING" in s]
    assert len(reminders) == 2 and all("thread 13, stress@127.0.0.1" in text for text in reminders)

    history(server, [50, 40, 30], now + timedelta(seconds=90))
    cycle(now + timedelta(seconds=90))
    resolved = [inbox.text(i) for i, s in enumerate(inbox.subjects()) if "RESOLVED" in s]
    assert len(resolved) == 2 and not Event.objects.filter(rule__in=[above, grows], resolved_at=None).exists()
    for text in resolved:
        assert "Oldest transaction: thread 16, root@localhost" in text and "thread 13" not in text
        seen = ended - timedelta(seconds=10)  # the last poll that saw it: held 4 min 20 s, gone by the next
        assert (f"It held it from {utc(first.started_at)}, last seen at {utc(seen)}, gone by {utc(ended)} (UTC):"
                " held for 0:04:20." in text)


def test_the_growth_line_names_the_span_the_data_covers_in_a_servers_first_minutes(inbox):
    server, now = make_server(poll_interval=POLL), timezone.now()
    make_rule(name="History grows", kind=Rule.GROWTH, threshold=1_000, window_minutes=10)
    history(server, [100 + 60 * i for i in range(41)], now, step=POLL)  # 200 s of polls: +2,400 so far
    cycle(now)
    growth = line(mail(inbox, "FIRING"), "Growth:")
    assert growth == "Growth:    +2,400 over 3 min 20 s"  # 40 polls x 5 s; not 'over 10 min'
