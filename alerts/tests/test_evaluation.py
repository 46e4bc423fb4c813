"""Rule kinds over samples written through the store, and the state they leave behind."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification, Rule
from alerts.status import firing_for_servers
from testing.alerts import history, make_rule
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def kinds(rule: Rule) -> list[str]:
    return list(Notification.objects.filter(event__rule=rule).order_by("id").values_list("kind", flat=True))


def test_it_fires_and_resolves_a_threshold(server):
    rule, now = make_rule(threshold=100), timezone.now()
    history(server, [10, 50, 90, 120, 150], now)
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert (event.firing, event.value, event.growth) == (True, 150, 140)
    assert event.since == now - timedelta(seconds=10)  # the first reading above 100
    assert firing_for_servers([server.id]) == {server.id: [rule.name]}

    history(server, [80], now + timedelta(seconds=10))
    evaluate_all(now + timedelta(seconds=10))
    event.refresh_from_db()
    assert not event.firing and event.value == 80 and event.peak == 150
    assert kinds(rule) == ["firing", "resolved"]
    assert firing_for_servers([server.id]) == {}


def test_it_leaves_state_alone_when_data_is_stale(server):
    rule, now = make_rule(threshold=100), timezone.now()
    history(server, [150], now)
    evaluate_all(now)
    evaluate_all(now + timedelta(minutes=10))  # no reading for 10 minutes: unknown, not resolved
    assert Event.objects.get(rule=rule).firing


def test_it_fires_on_growth_within_the_window(server):
    now = timezone.now()
    fast = make_rule(name="fast", kind=Rule.GROWTH, threshold=300, window_minutes=2)
    slow = make_rule(name="slow", kind=Rule.GROWTH, threshold=1000, window_minutes=2)
    history(server, [1000 + 20 * i for i in range(25)], now)  # +20 every 10 s: +240 per 2 min
    evaluate_all(now)
    assert not Event.objects.filter(rule__in=[fast, slow]).exists()

    history(server, [1480 + 50 * i for i in range(1, 13)], now + timedelta(seconds=120))  # +50 every 10 s
    evaluate_all(now + timedelta(seconds=120))
    event = Event.objects.get(rule=fast)
    assert event.growth == 600 and event.value == 2080
    # The first poll whose growth over 2 min is above 300: 1630 - 1300 at +30 s (at +20 s: 1580 - 1280 = 300)
    assert event.since == now + timedelta(seconds=30)
    assert not Event.objects.filter(rule=slow).exists()


def test_it_fires_on_sustained_growth_only_without_a_dip(server):
    now = timezone.now()
    rule = make_rule(kind=Rule.SUSTAINED, threshold=0, window_minutes=1)
    history(server, [100, 110, 105, 110, 120, 130, 140], now)  # dips 40 s ago: not a minute of rising
    evaluate_all(now)
    assert not Event.objects.filter(rule=rule).exists()

    history(server, [150, 150, 160], now + timedelta(seconds=30))  # flat readings do not break the run
    evaluate_all(now + timedelta(seconds=30))
    event = Event.objects.get(rule=rule)
    assert event.firing and event.growth == 160 - 110 and event.since == now - timedelta(seconds=40)


def test_it_waits_for_a_full_window_before_judging_sustained_growth(server):
    now = timezone.now()
    rule = make_rule(kind=Rule.SUSTAINED, threshold=0, window_minutes=5)
    history(server, [1, 2, 3, 4], now)  # 30 s of data for a 5 minute window
    evaluate_all(now)
    assert not Event.objects.filter(rule=rule).exists()


def test_it_scopes_rules_by_server_and_by_tag(db):
    now = timezone.now()
    prod, test = make_server("prod1", tags=["prod"]), make_server("test1", tags=["test"])
    by_tag = make_rule(name="prod only", tag="prod")
    by_server = make_rule(name="test1 only", server=test)
    everywhere = make_rule(name="everywhere")
    for server in (prod, test):
        history(server, [500], now)
    evaluate_all(now)
    firing = firing_for_servers([prod.id, test.id])
    assert firing == {prod.id: [everywhere.name, by_tag.name], test.id: [everywhere.name, by_server.name]}


def test_it_mails_again_only_after_the_cooldown(server):
    rule, now = make_rule(cooldown_minutes=10), timezone.now()
    for minute, value in enumerate([150, 50, 150, 50, 150]):  # flapping once a minute
        at = now + timedelta(minutes=minute)
        history(server, [value], at)
        evaluate_all(at)
    assert Event.objects.filter(rule=rule).count() == 3
    assert kinds(rule) == ["firing", "resolved"]  # the later flaps are recorded, not mailed

    at = now + timedelta(minutes=11)  # still firing when the cooldown ends: now it is mailed
    history(server, [150], at)
    evaluate_all(at)
    assert kinds(rule) == ["firing", "resolved", "firing"]


def test_it_reminds_while_still_firing(server):
    rule, now = make_rule(renotify_minutes=2), timezone.now()
    for second in range(0, 300, 30):
        at = now + timedelta(seconds=second)
        history(server, [150 + second], at)
        evaluate_all(at)
    assert kinds(rule) == ["firing", "reminder", "reminder"]  # at 0, 120 and 240 s


def test_it_closes_events_of_a_disabled_rule_quietly(server):
    rule, now = make_rule(), timezone.now()
    history(server, [150], now)
    evaluate_all(now)
    Rule.objects.filter(id=rule.id).update(enabled=False)
    evaluate_all(now)
    assert not Event.objects.get(rule=rule).firing
    assert kinds(rule) == ["firing"]


def test_it_creates_the_builtin_rules_once(db):
    evaluate_all()
    evaluate_all()
    builtin = Rule.objects.exclude(builtin="")
    assert sorted(builtin.values_list("kind", flat=True)) == sorted(
        ["threshold", "growth", "sustained", "unreachable", "source_failing", "replica_lag", "replica_stopped"])
    assert set(builtin.filter(metric="history_list_length").values_list("kind", flat=True)) == {
        "threshold", "growth", "sustained"}


def test_it_prunes_old_resolved_events_only(server):
    from alerts.outbox import enqueue
    from alerts.pruning import prune

    rule, now = make_rule(), timezone.now()
    then = now - timedelta(days=100)
    old = Event.objects.create(rule=rule, server=server, since=then, opened_at=then, resolved_at=then)
    enqueue(Notification.FIRING, old, rule, then)
    history(server, [150], now)
    evaluate_all(now)
    assert prune(now) == 2  # the old event and its e-mail
    assert list(Event.objects.filter(rule=rule).values_list("resolved_at", flat=True)) == [None]


def test_it_sums_counter_deltas_for_growth_and_uses_rates_for_thresholds(server):
    from store.ingest import write_samples
    from store.sample import Sample

    now = timezone.now()
    write_samples([Sample(server.id, "global_status", now - timedelta(seconds=10 * (12 - i)), 10.0,
                          {"Com_commit": 30}, frozenset({"Com_commit"})) for i in range(13)])
    growth = make_rule(name="commits", kind=Rule.GROWTH, metric="Com_commit", threshold=150, window_minutes=1)
    rate = make_rule(name="commit rate", metric="Com_commit", threshold=2.5)  # 30 per 10 s = 3/s
    evaluate_all(now)
    assert Event.objects.get(rule=growth).growth == 180  # six 10 s deltas after the reading a minute ago
    assert Event.objects.get(rule=rate).value == 3
