"""The alert rule form (page and admin), the admin's events and notifications, the test e-mail: each field
hostile alone. No 500; a refusal shows a field error and changes nothing; nothing saved holds a NUL or a
time outside the bounds (testing/form_fuzz.py). A viewer's POST is refused and changes nothing.
"""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from alerts.models import Event, Notification, Rule
from testing.alerts import make_rule
from testing.form_fuzz import VALUES, fuzz_form, raising_admin, refuse_controls, rows
from testing.servers import make_server

pytestmark = pytest.mark.django_db
AT = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture
def world(admin_user) -> dict:
    server = make_server("fuzz-db", port=1)
    rule = make_rule(server=server)
    event = Event.objects.create(rule=rule, server=server, since=AT, opened_at=AT, value=1)
    note = Notification.objects.create(kind=Notification.TEST, recipients=["a@example.com"], created_at=AT,
                                       next_attempt_at=AT)
    return {"server": server, "rule": rule, "event": event, "note": note}


@pytest.fixture
def client(admin_user) -> Client:
    return raising_admin(admin_user)


def rule_post(server_id: int):
    def post(i: int) -> dict:
        return {"name": f"rule {i}", "kind": "threshold", "metric": "history_list_length", "threshold": "100",
                "window_minutes": "10", "source": "", "server": str(server_id), "tag": "",
                "recipients": "dba@example.com", "webhook_url": "http://192.0.2.1:8080/hook", "webhook_secret": "s",
                "cooldown_minutes": "0", "renotify_minutes": "30", "enabled": "on"}
    return post


def event_post(world: dict):
    def post(i: int) -> dict:
        return {"rule": str(world["rule"].pk), "server": str(world["server"].pk), "key": f"k{i}",
                "since_0": "2026-01-05", "since_1": "12:00:00", "opened_at_0": "2026-01-05", "opened_at_1": "12:00:00",
                "resolved_at_0": "2026-01-05", "resolved_at_1": "13:00:00", "value": "1.5", "peak": "2",
                "growth": "0.5", "growth_span": "10 min", "detail": "d\n\tline 2"}
    return post


def notification_post(world: dict):
    def post(i: int) -> dict:
        return {"event": str(world["event"].pk), "kind": "firing", "channel": "email", "url": "",
                "recipients": "a@example.com", "context": "{}", "created_at_0": "2026-01-05",
                "created_at_1": "12:00:00", "next_attempt_at_0": "2026-01-05", "next_attempt_at_1": "12:00:00",
                "attempts": "0", "last_error": f"e{i}"}
    return post


def check(outcome) -> None:
    assert outcome.posts > 0
    assert outcome.failures == [], "\n".join(outcome.failures[:40])


def test_it_refuses_hostile_rule_fields_on_the_alerts_page(client, world):
    post = rule_post(world["server"].pk)
    check(fuzz_form(client, "/alerts/rules/new/", post, Rule))
    check(fuzz_form(client, f"/alerts/rules/{world['rule'].pk}/edit/", post, Rule))


def test_it_refuses_hostile_rule_fields_in_the_admin(client, world):
    post = rule_post(world["server"].pk)
    check(fuzz_form(client, "/admin/alerts/rule/add/", post, Rule))
    check(fuzz_form(client, f"/admin/alerts/rule/{world['rule'].pk}/change/", post, Rule))


def test_it_refuses_hostile_event_fields_in_the_admin(client, world):
    check(fuzz_form(client, "/admin/alerts/event/add/", event_post(world), Event))
    check(fuzz_form(client, f"/admin/alerts/event/{world['event'].pk}/change/", event_post(world), Event))


def test_it_refuses_control_characters_in_a_rules_source(client, world):
    post, rule = rule_post(world["server"].pk), world["rule"].pk
    for url in ("/alerts/rules/new/", f"/alerts/rules/{rule}/edit/", "/admin/alerts/rule/add/",
                f"/admin/alerts/rule/{rule}/change/"):
        check(refuse_controls(client, url, post, Rule, ["source"]))


def test_it_refuses_control_characters_in_a_rules_metric(client, world):
    """A family's name takes any suffix: a bidi override after "wait.time_ps:" named a metric of the catalog."""
    post, rule = rule_post(world["server"].pk), world["rule"].pk
    for url in ("/alerts/rules/new/", f"/alerts/rules/{rule}/edit/", "/admin/alerts/rule/add/",
                f"/admin/alerts/rule/{rule}/change/"):
        check(refuse_controls(client, url, post, Rule, ["metric"]))
    before = rows(Rule)
    response = client.post("/alerts/rules/new/", {**post(0), "metric": "wait.time_ps:wait/synch/mutex/innodb/\u202e"})
    assert rows(Rule) == before and "cannot hold control characters (U+202E)" in response.content.decode()


def test_it_refuses_control_characters_in_an_events_key_and_detail(client, world):
    """The key is one line; the detail may hold tabs and line breaks, and refuses the rest."""
    for url in ("/admin/alerts/event/add/", f"/admin/alerts/event/{world['event'].pk}/change/"):
        check(refuse_controls(client, url, event_post(world), Event, ["key"], texts=["detail"]))


def test_it_refuses_hostile_notification_fields_in_the_admin(client, world):
    check(fuzz_form(client, "/admin/alerts/notification/add/", notification_post(world), Notification))
    check(fuzz_form(client, f"/admin/alerts/notification/{world['note'].pk}/change/", notification_post(world),
                    Notification))


def test_it_refuses_hostile_test_email_addresses(client, world):
    before = Notification.objects.count()
    for value in VALUES:
        assert client.post("/alerts/test-email/", {"address": value}).status_code == 302
    assert Notification.objects.count() == before  # not one of them is an address


def test_valid_posts_still_save(client, world):
    post = rule_post(world["server"].pk)
    assert client.post("/alerts/rules/new/", post(1)).status_code == 302
    assert client.post("/admin/alerts/rule/add/", post(2)).status_code == 302
    assert client.post("/admin/alerts/event/add/", event_post(world)(3)).status_code == 302
    assert client.post("/admin/alerts/notification/add/", notification_post(world)(4)).status_code == 302
    assert set(Rule.objects.filter(name__startswith="rule ").values_list("name", flat=True)) == {"rule 1", "rule 2"}
    assert Rule.objects.get(name="rule 1").renotify_minutes == 30
    assert Event.objects.get(key="k3").resolved_at == datetime(2026, 1, 5, 13, tzinfo=UTC)
    assert Event.objects.get(key="k3").detail == "d\n\tline 2"  # a free text keeps its tab and line break
    assert Notification.objects.filter(last_error="e4").count() == 1


def test_a_viewer_changes_nothing(django_user_model, world):
    viewer = django_user_model.objects.create_user("viewer", password="pw-for-tests")
    viewer.groups.add(Group.objects.get(name="viewers"))
    client = Client(raise_request_exception=True)
    client.force_login(viewer)
    post = rule_post(world["server"].pk)
    before = [rows(m) for m in (Rule, Event, Notification)]
    for url in ("/alerts/rules/new/", f"/alerts/rules/{world['rule'].pk}/edit/", "/admin/alerts/rule/add/",
                f"/alerts/rules/{world['rule'].pk}/toggle/", f"/alerts/rules/{world['rule'].pk}/delete/"):
        for value in VALUES[:6]:
            response = client.post(url, {**post(1), "name": value})
            assert response.status_code in (302, 403), (url, response.status_code)
    assert [rows(m) for m in (Rule, Event, Notification)] == before
