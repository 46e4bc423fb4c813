"""The figures a rule judges and reports: growths, staleness reach, since and spans, each as computed by hand."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.models import PollRecord, ServerHealth
from servers.models import Server
from store.ingest import write_samples
from store.sample import Sample
from testing.alerts import history, make_rule
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def seconds(n: float) -> timedelta:
    return timedelta(seconds=n)


def commit_polls(server: Server, polls: list[tuple[datetime, float, int]]) -> None:
    """Com_commit polls as (read at, interval in seconds, delta over that interval)."""
    write_samples([Sample(server.id, "global_status", t, iv, {"Com_commit": d}, frozenset({"Com_commit"}))
                   for t, iv, d in polls])


def text_line(inbox, starts: str) -> str:
    return next(row for row in inbox.text(0).splitlines() if row.startswith(starts))


def utc(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_it_counts_a_counters_growth_from_the_poll_at_the_window_start_after_a_missed_poll(inbox):
    server, now = make_server(poll_interval=10), timezone.now()
    rule = make_rule(name="commits", kind=Rule.GROWTH, metric="Com_commit", threshold=10, window_minutes=5)
    before = [(now - seconds(t), 10, 100) for t in range(605, 324, -10)]  # ..., now-335, now-325
    missed = [(now - seconds(305), 20, 2_000)]  # the poll at now-315 was missed
    after = [(now - seconds(t), 10, 100) for t in range(295, 4, -10)]  # 30 polls, now-295 .. now-5
    assert len(after) == 30
    commit_polls(server, before + missed + after)
    evaluate_all(now)
    sending.send_due(now)
    event = Event.objects.get(rule=rule)
    # The last reading at or before now-300 is the poll at now-305: counter(now-5) - counter(now-305).
    assert event.growth == 30 * 100
    assert "changed by +3,000 in 5 min" in event.detail  # now-305 to now-5
    assert text_line(inbox, "Growth:") == "Growth:    +3,000 over 5 min"


def test_it_judges_each_tagged_server_with_its_own_staleness_reach(db):
    fast = make_server(name="fast", poll_interval=5, tags=["prod"])
    make_server(name="slow", port=3307, poll_interval=60, tags=["prod"])
    now = timezone.now()
    history(fast, [1_000, 1_000], now - seconds(465), step=5)  # now-470, now-465; then an outage
    history(fast, [5_000 + i for i in range(60)], now, step=5)  # now-295 .. now
    big = make_rule(name="grows 100", kind=Rule.GROWTH, threshold=100, window_minutes=5, tag="prod")
    small = make_rule(name="grows 50", kind=Rule.GROWTH, threshold=50, window_minutes=5, tag="prod")
    evaluate_all(now)
    # fast is stale after 60 s: nothing between now-360 and now-300 speaks for the window's start, so
    # the growth runs from the first reading inside it: 5,059 - 5,000 over now-295 .. now.
    assert not Event.objects.filter(rule=big).exists()
    event = Event.objects.get(rule=small)
    assert event.server_id == fast.id and event.growth == 59
    assert "changed by +59 in 4 min 55 s" in event.detail


def test_it_dates_a_threshold_from_the_run_start_before_the_lookback(admin_client, inbox):
    server, now = make_server(), timezone.now()
    rule = make_rule()  # history_list_length above 100
    history(server, [50] + [150] * 180, now)  # 50 at now-1800, then 150 every 10 s from now-1790 to now
    evaluate_all(now)
    sending.send_due(now)
    event = Event.objects.get(rule=rule)
    since = now - seconds(1790)
    assert event.since == since
    assert text_line(inbox, "Since:") == f"Since:     {utc(since)} (UTC, 0:29:50 before {utc(now)})"
    purge = f"/servers/{server.id}/purge/?from={utc(since - timedelta(minutes=30))}"
    assert purge in inbox.text(0)
    page = admin_client.get(f"/alerts/events/{event.id}/").content.decode()
    assert f"<td>{since.astimezone(UTC):%Y-%m-%d %H:%M:%S}</td><td>condition started to hold</td>" in page
    assert purge in page


def health(server: Server, now: datetime, outcomes: list[bool], failures: int) -> None:
    """Polls every 10 s, the last at now, ok or not; the health row as the collectors keep it."""
    polls = [(now - seconds(10 * (len(outcomes) - 1 - i)), ok) for i, ok in enumerate(outcomes)]
    for slot, (t, ok) in enumerate(polls):
        PollRecord.objects.create(server=server, slot=slot, started_at=t, duration_ms=3.0, ok=ok,
                                  error="" if ok else "connection refused")
    successes = [t for t, ok in polls if ok]
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=max(successes, default=None),
                                consecutive_failures=failures, last_error="connection refused",
                                polls=len(polls))


def test_it_dates_an_unreachable_server_from_its_first_failed_poll(db):
    never, back = make_server(name="never"), make_server(name="back", port=3307)
    rule = make_rule(name="unreachable", kind=Rule.UNREACHABLE, metric="", threshold=3)
    now = timezone.now()
    health(never, now, [False] * 5, failures=5)  # never reached: failures at now-40 .. now
    health(back, now, [True] * 3 + [False] * 5, failures=5)  # last success at now-50, failures from now-40
    evaluate_all(now)
    assert Event.objects.get(rule=rule, server=never).since == now - seconds(40)
    event = Event.objects.get(rule=rule, server=back)
    assert event.since == now - seconds(40)
    assert f"5 polls in a row failed, the first at {now - seconds(40):%Y-%m-%d %H:%M:%S} UTC" in event.detail


def test_it_ends_an_outage_when_the_server_answered_not_when_the_poll_began(db):
    server, now = make_server(), timezone.now()
    rule = make_rule(name="unreachable", kind=Rule.UNREACHABLE, metric="", threshold=3)
    health(server, now - seconds(20), [True] + [False] * 3, failures=3)  # ok at now-50, failed at now-40..now-20
    evaluate_all(now - seconds(20))
    # The first poll after the outage started at now-10 on the paused server, which answered 5.2 s later.
    PollRecord.objects.create(server=server, slot=4, started_at=now - seconds(10), duration_ms=5200.0, ok=True)
    PollRecord.objects.create(server=server, slot=5, started_at=now, duration_ms=3.0, ok=True)
    ServerHealth.objects.filter(server=server).update(last_poll_at=now, last_success_at=now, consecutive_failures=0)
    evaluate_all(now + seconds(1))
    event = Event.objects.get(rule=rule)
    assert event.since == now - seconds(40)
    assert event.ended_at == now - seconds(4.8)


def test_it_names_the_last_success_when_the_poll_history_lost_the_first_failure(db):
    server, now = make_server(), timezone.now()
    rule = make_rule(name="unreachable", kind=Rule.UNREACHABLE, metric="", threshold=3)
    health(server, now, [True] + [False] * 5, failures=500)  # the ring kept only the last 5 of 500 failures
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert event.since == now - seconds(50)
    assert f"last successful poll at {now - seconds(50):%Y-%m-%d %H:%M:%S} UTC" in event.detail


def test_it_names_the_span_between_the_readings_when_the_last_poll_is_late(db):
    server, now = make_server(), timezone.now()
    rule = make_rule(name="grows", kind=Rule.GROWTH, threshold=1_000, window_minutes=5)
    history(server, [100 * i for i in range(36)], now - seconds(50))  # now-400 .. now-50
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    # At now-300 the 11th reading (1,000); the last, at now-50, is 3,500: 250 s apart.
    assert event.growth == 3_500 - 1_000
    assert "changed by +2,500 in 4 min 10 s" in event.detail
    assert event.growth_span == "4 min 10 s"


def test_it_shows_rates_per_second_growth_spans_and_short_durations_on_the_pages(admin_client):
    server, now = make_server(poll_interval=5), timezone.now()
    make_rule(name="Commits above 100/s", metric="Com_commit", threshold=100)
    commit_polls(server, [(now - seconds(10), 5, 250), (now - seconds(5), 5, 600), (now, 5, 650)])
    evaluate_all(now)  # rates 50, 120, 130 per second: firing since now-5
    firing = admin_client.get("/alerts/").content.decode().split("<h2>Rules", 1)[0]
    assert '<td class="num">130/s</td>' in firing
    # 250 + 600 + 650 since the first delta began (now-15): no poll before, less data than 10 min.
    assert '<td class="num">+1,500 over 15 s</td>' in firing

    commit_polls(server, [(now + seconds(t), 5, 100) for t in range(5, 50, 5)])  # 20 per second
    evaluate_all(now + seconds(45))
    event = Event.objects.get(rule__name="Commits above 100/s")
    past = admin_client.get("/alerts/").content.decode().split("<h2>Past events", 1)[1]
    # From now-5 (130/s) to the first poll below 100/s, now+5: the data's end, not the evaluation's (now+45).
    assert "<td>10 s</td>" in past
    assert '<td class="num">130/s</td>' in past
    page = admin_client.get(f"/alerts/events/{event.id}/").content.decode()
    assert "Com_commit per second between 20 and 130" in page
