"""A user may queue only TEST_EMAILS_PER_HOUR test e-mails an hour: the button is no mail cannon."""

from datetime import timedelta

import pytest
from django.test import Client

from alerts.models import Notification

pytestmark = pytest.mark.django_db

PER_HOUR = 5  # the documented default


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_sixth_test_email_within_an_hour_is_refused(admin_user, django_user_model):
    client = logged_in(admin_user)
    for i in range(PER_HOUR):
        client.post("/alerts/test-email/", {"address": f"me{i}@example.com"})
    response = client.post("/alerts/test-email/", {"address": "me@example.com"}, follow=True)
    assert "queued 5 test e-mails in the last hour" in response.content.decode()
    assert Notification.objects.filter(kind="test").count() == PER_HOUR
    other = logged_in(django_user_model.objects.create_superuser("other", password="pw"))
    other.post("/alerts/test-email/", {"address": "ops@example.com"})  # the limit is per user
    assert Notification.objects.filter(kind="test").count() == PER_HOUR + 1


def test_an_hour_later_the_user_may_send_again(admin_user):
    client = logged_in(admin_user)
    for i in range(PER_HOUR):
        client.post("/alerts/test-email/", {"address": f"me{i}@example.com"})
    Notification.objects.update(created_at=Notification.objects.first().created_at - timedelta(minutes=61))
    response = client.post("/alerts/test-email/", {"address": "me@example.com"}, follow=True)
    assert "Test e-mail to me@example.com queued" in response.content.decode()
