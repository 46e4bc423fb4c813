"""The admin's forms for events and notifications: what the outbox and the pages read must be readable."""

from datetime import UTC, datetime

import pytest
from django.test import Client

from alerts.models import Event, Notification, Rule
from testing.alerts import make_rule
from testing.form_fuzz import raising_admin
from testing.servers import make_server

pytestmark = pytest.mark.django_db
AT = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture
def client(admin_user) -> Client:
    return raising_admin(admin_user)


def notification(**fields) -> dict:
    return {"kind": "test", "channel": "email", "url": "", "recipients": "a@example.com", "context": "{}",
            "created_at_0": "2026-01-05", "created_at_1": "12:00:00", "next_attempt_at_0": "2026-01-05",
            "next_attempt_at_1": "12:00:00", "attempts": "0", "last_error": "", **fields}


@pytest.mark.parametrize("context", ["", "null"])
def test_it_keeps_an_empty_notification_context_as_no_values(client, context):
    response = client.post("/admin/alerts/notification/add/", notification(context=context))
    assert response.status_code == 302
    assert Notification.objects.get().context == {}


def test_it_still_saves_a_notification_context(client):
    assert client.post("/admin/alerts/notification/add/", notification(context='{"a": 1}')).status_code == 302
    assert Notification.objects.get().context == {"a": 1}


def event(rule: Rule, **fields) -> dict:
    return {"rule": str(rule.pk), "server": str(rule.server_id), "key": "k", "since_0": "2026-01-05",
            "since_1": "12:00:00", "opened_at_0": "2026-01-05", "opened_at_1": "12:00:00", "value": "1", **fields}


@pytest.mark.parametrize("field", ["since_0", "opened_at_0", "resolved_at_0", "ended_at_0", "notified_at_0"])
@pytest.mark.parametrize("day", ["0001-01-01", "1969-12-31", "2100-01-02", "9999-12-31"])
def test_it_refuses_an_event_time_outside_the_bounds(client, field, day):
    rule = make_rule(server=make_server())
    response = client.post("/admin/alerts/event/add/", event(rule, **{field: day, field[:-1] + "1": "12:00:00"}))
    assert response.status_code == 200
    assert "between 1970-01-01 and 2100-01-01" in response.content.decode()
    assert not Event.objects.exists()


@pytest.mark.parametrize("field", ["created_at_0", "next_attempt_at_0", "sent_at_0", "failed_at_0"])
def test_it_refuses_a_notification_time_outside_the_bounds(client, field):
    response = client.post("/admin/alerts/notification/add/",
                           notification(**{field: "0001-01-01", field[:-1] + "1": "12:00:00"}))
    assert response.status_code == 200
    assert "between 1970-01-01 and 2100-01-01" in response.content.decode()
    assert not Notification.objects.exists()


def test_it_still_saves_an_event_within_the_bounds(client):
    rule = make_rule(server=make_server())
    response = client.post("/admin/alerts/event/add/", event(rule, resolved_at_0="2026-01-05", resolved_at_1="13:00"))
    assert response.status_code == 302
    assert Event.objects.get().resolved_at == datetime(2026, 1, 5, 13, tzinfo=UTC)


def rule(**fields) -> dict:
    return {"name": "History high", "kind": "threshold", "metric": "history_list_length", "threshold": "100",
            "recipients": "dba@example.com", "cooldown_minutes": "0", "renotify_minutes": "0", "enabled": "on",
            **fields}


@pytest.mark.parametrize("url", ["/alerts/rules/new/", "/admin/alerts/rule/add/"])
@pytest.mark.parametrize("name", ["\x1b[31mred", "bell\x07", "a\r\nb"])
def test_it_refuses_control_characters_in_a_rule_name(client, url, name):
    response = client.post(url, rule(name=name))
    assert response.status_code == 200
    assert "cannot hold control characters" in response.content.decode()
    assert not Rule.objects.filter(builtin="").exists()


def test_it_still_saves_a_rule_name_with_any_printable_text(client):
    assert client.post("/alerts/rules/new/", rule(name="Purge < 5 & “lag” ü")).status_code == 302
    assert Rule.objects.filter(name="Purge < 5 & “lag” ü").count() == 1
