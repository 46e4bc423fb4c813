"""An event ends when the data shows it: the first poll below the threshold, not the evaluation's clock.

Polls are written at known times and evaluated later than them; the expected times and spans are the
polls' own, computed here by hand (real SMTP, a real local webhook receiver).
"""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from testing.alerts import history, make_rule
from testing.servers import make_server
from testing.webhook_sink import running_sink

pytestmark = pytest.mark.django_db


def utc(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def whole_second() -> datetime:
    return timezone.now().replace(microsecond=0)


@pytest.fixture
def sink(settings):
    with running_sink() as sink:
        yield sink


def resolved_mail(inbox) -> str:
    return next(inbox.text(i) for i, s in enumerate(inbox.subjects()) if "RESOLVED" in s)


def test_the_end_is_the_first_poll_below_the_threshold(inbox, sink, admin_client):
    server, t0 = make_server("db-ends"), whole_second()
    rule = make_rule(threshold=100, webhook_url=sink.url)
    # Polls 5 s apart: above 100 from t0-20 (150) to t0-10 (180); the first below at t0-5 (90).
    history(server, [50, 150, 200, 180], t0 - timedelta(seconds=10), step=5)
    evaluate_all(t0 - timedelta(seconds=9))
    history(server, [90, 80], t0, step=5)
    evaluate_all(t0 + timedelta(seconds=11))  # the evaluation runs 16 s after the first poll below
    sending.send_due(t0 + timedelta(seconds=11))

    event = Event.objects.get(rule=rule)
    first_below, first_above = t0 - timedelta(seconds=5), t0 - timedelta(seconds=20)
    assert (event.since, event.ended_at, event.data_stopped) == (first_above, first_below, False)
    assert event.resolved_at == t0 + timedelta(seconds=11)  # the evaluation's clock, kept apart
    assert event.held_for == timedelta(seconds=15)

    text = resolved_mail(inbox)
    assert f"has cleared on db-ends at {utc(first_below)} (UTC), the first poll at which it no longer held" in text
    assert f"Since:     {utc(first_above)} (UTC, 0:00:15 before {utc(first_below)})" in text

    resolved = next(c.json for c in sink.calls if c.json["event"] == "resolved")
    assert resolved["at"] == utc(first_below) and resolved["since"] == utc(first_above)
    assert resolved["data_stopped"] is False
    assert resolved["text"].endswith(
        f"cleared at {utc(first_below)}, held since {utc(first_above)} (0:00:15); value 80 when resolved "
        f"<{resolved['url']}>")

    page = admin_client.get("/alerts/").content.decode().split("<h2>Past events", 1)[1]
    assert f"{first_below:%Y-%m-%d %H:%M:%S}" in page and "<td>15 s</td>" in page
    timeline = admin_client.get(f"/alerts/events/{event.id}/").content.decode()
    assert f"{first_below:%Y-%m-%d %H:%M:%S}</td><td>condition stopped holding" in timeline


def test_an_end_after_the_polls_stopped_is_the_last_poll_and_says_so(inbox, sink):
    server, t0 = make_server("db-gone"), whole_second()
    rule = make_rule(threshold=100, webhook_url=sink.url)
    history(server, [50, 150, 200], t0, step=10)  # above from t0-10; the last poll above at t0
    evaluate_all(t0 + timedelta(seconds=1))
    # No poll for 5 minutes (the server was down: stale after 60 s), then one below.
    back = t0 + timedelta(minutes=5)
    history(server, [40], back)
    evaluate_all(back + timedelta(seconds=3))
    sending.send_due(back + timedelta(seconds=3))

    event = Event.objects.get(rule=rule)
    assert (event.ended_at, event.data_stopped, event.held_for) == (t0, True, timedelta(seconds=10))
    assert f"its data stopped, the last poll at {utc(t0)} (UTC)" in resolved_mail(inbox)
    resolved = next(c.json for c in sink.calls if c.json["event"] == "resolved")
    assert resolved["at"] == utc(t0) and resolved["data_stopped"] is True
    assert f"data stopped after {utc(t0)} (its last poll)" in resolved["text"]


def test_an_event_stored_before_the_end_was_kept_shows_its_resolution_time(admin_client, server, settings):
    settings.ALERT_RECIPIENTS = []
    rule, t0 = make_rule(), whole_second()
    Event.objects.create(rule=rule, server=server, since=t0 - timedelta(seconds=56), opened_at=t0,
                         resolved_at=t0)
    page = admin_client.get("/alerts/").content.decode().split("<h2>Past events", 1)[1]
    assert f"{t0:%Y-%m-%d %H:%M:%S}" in page and "<td>56 s</td>" in page


def test_the_end_is_read_back_when_evaluations_stopped_for_longer_than_they_read(settings):
    settings.ALERT_RECIPIENTS = []
    server, t0 = make_server("db-late"), whole_second()
    rule = make_rule(threshold=100)
    history(server, [50, 150, 200], t0, step=10)  # above from t0-10
    evaluate_all(t0 + timedelta(seconds=1))
    # Below from t0+10 on, polled every 10 s for 20 minutes; the next evaluation reads only the last 11.
    history(server, [40] * 120, t0 + timedelta(minutes=20), step=10)
    evaluate_all(t0 + timedelta(minutes=20, seconds=5))
    event = Event.objects.get(rule=rule)
    assert (event.ended_at, event.data_stopped) == (t0 + timedelta(seconds=10), False)
    assert event.held_for == timedelta(seconds=20)


def test_a_growths_end_is_the_first_poll_whose_growth_over_the_window_is_x_or_less(settings):
    settings.ALERT_RECIPIENTS = []
    server, t0 = make_server("db-grows"), whole_second()
    rule = make_rule(kind=Rule.GROWTH, threshold=100, window_minutes=1)
    history(server, [0] * 7 + [200], t0, step=10)  # +200 in the minute to t0: firing since t0
    evaluate_all(t0 + timedelta(seconds=1))
    history(server, [200] * 6, t0 + timedelta(seconds=60), step=10)  # flat from t0 on
    evaluate_all(t0 + timedelta(seconds=75))
    event = Event.objects.get(rule=rule)
    # Growth over 1 min at t0+50: 200 - 0 (t0-10); at t0+60: 200 - 200 (t0) = 0, the first at 100 or less.
    assert (event.since, event.ended_at) == (t0, t0 + timedelta(seconds=60))
    assert event.held_for == timedelta(seconds=60)


def test_the_timeline_lists_its_rows_in_time_order(inbox, admin_client):
    """Seen live: the condition stopped holding at 11:05:51 (the first poll below), the evaluation resolved it and
    queued the resolved e-mail at 11:05:54; the e-mail's row came before the 11:05:51 row."""
    server, t0 = make_server("db-order"), whole_second()
    rule = make_rule(threshold=100)
    history(server, [50, 150, 200, 180], t0 - timedelta(seconds=10), step=5)  # above from t0-20
    evaluate_all(t0 - timedelta(seconds=9))
    history(server, [90, 80], t0, step=5)  # the first below at t0-5
    evaluate_all(t0 + timedelta(seconds=11))
    event = Event.objects.get(rule=rule)
    page = admin_client.get(f"/alerts/events/{event.id}/").content.decode().split("event-timeline", 1)[1]
    rows = re.findall(r"<tr><td>(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)</td>\s*<td>(\w+)", page)
    # By hand: started t0-20, opened at the first evaluation (t0-9) with its e-mail, stopped at t0-5, resolved at
    # the second evaluation (t0+11) with its e-mail.
    assert [what for _at, what in rows] == ["condition", "alert", "firing", "condition", "resolved", "resolved"]
    assert [at for at, _what in rows] == sorted(at for at, _what in rows)
