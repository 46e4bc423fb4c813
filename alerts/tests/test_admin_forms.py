"""The admin's forms for events and notifications: what the outbox and the pages read must be readable."""

from datetime import UTC, datetime

import pytest
from django.test import Client

from alerts.models import Notification

pytestmark = pytest.mark.django_db
AT = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture
def client(admin_user) -> Client:
    client = Client(raise_request_exception=True)
    client.force_login(admin_user)
    return client


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
