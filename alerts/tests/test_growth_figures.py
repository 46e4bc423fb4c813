"""A growth rule's figures as an engineer computes them by hand from the samples written."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from store.ingest import write_samples
from store.sample import Sample
from testing.alerts import history, make_rule

pytestmark = pytest.mark.django_db

# The reviewer's run: history length every 5 s from 357; +19,920 after 4 min, +20,331 at the next poll.
REVIEWED = [357 + 415 * i for i in range(49)] + [20_688, 21_064]


def test_it_dates_a_growth_from_the_first_poll_above_x_not_the_window_start(server):
    rule = make_rule(name="grows", kind=Rule.GROWTH, threshold=20_000, window_minutes=5)
    now = timezone.now()
    start = now - timedelta(seconds=250)
    history(server, REVIEWED, now, step=5)
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert REVIEWED[48] - REVIEWED[0] == 19_920  # at start + 240 s: not above 20,000
    assert event.since == start + timedelta(seconds=245)  # 20,688 - 357 = 20,331
    assert event.growth == 21_064 - 357


def test_it_names_the_span_the_data_covers_when_shorter_than_the_window(server):
    rule = make_rule(name="grows", kind=Rule.GROWTH, threshold=20_000, window_minutes=5)
    now = timezone.now()
    history(server, REVIEWED, now, step=5)
    evaluate_all(now)
    assert "changed by +20,707 in 4 min 10 s (limit 20,000)" in Event.objects.get(rule=rule).detail

    later = now + timedelta(seconds=60)  # the data now covers the window, which starts 10 s after the first poll
    history(server, [21_064 + 25 * i for i in range(1, 13)], later, step=5)
    evaluate_all(later)
    event = Event.objects.get(rule=rule)
    assert event.growth == 21_364 - REVIEWED[2] == 20_177
    assert "changed by +20,177 in 5 min (limit 20,000)" in event.detail


def commits(server, deltas: list[int], end, step: float = 10.0) -> None:
    """Com_commit deltas, one poll every step seconds, the last at end (each delta covers the step before it)."""
    write_samples([Sample(server.id, "global_status", end - timedelta(seconds=step * (len(deltas) - 1 - i)), step,
                          {"Com_commit": d}, frozenset({"Com_commit"})) for i, d in enumerate(deltas)])


def test_it_counts_a_counters_first_delta_when_its_interval_is_in_the_window(server):
    deltas = [832] + [500 + 10 * i for i in range(24)]  # 25 polls of 10 s: 250 s of data, 10 min window
    rule = make_rule(name="commits", kind=Rule.GROWTH, metric="Com_commit", threshold=5_000, window_minutes=10)
    now = timezone.now()
    commits(server, deltas, now)
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert event.growth == sum(deltas) == 15_592
    assert "changed by +15,592 in 4 min 10 s" in event.detail
    # Running totals 832, 1,332, 1,842, ...: the 9th poll's 5,112 is the first above 5,000.
    assert sum(deltas[:8]) == 4_542 and sum(deltas[:9]) == 5_112
    assert event.since == now - timedelta(seconds=10 * (25 - 9))


def test_it_counts_a_counter_from_the_reading_at_the_window_start_once_it_covers_it(server):
    rule = make_rule(name="commits", kind=Rule.GROWTH, metric="Com_commit", threshold=60, window_minutes=1)
    now = timezone.now()
    commits(server, list(range(1, 14)), now)  # 13 polls; the reading a minute back is the 7th's (delta 7)
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert event.growth == sum(range(8, 14)) == 63  # the six deltas after it
    assert "changed by +63 in 1 min" in event.detail
    assert event.since == now  # a poll earlier: 7 + ... + 12 = 57
