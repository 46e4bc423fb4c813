"""Wrong passwords are throttled per user name and per address (django-axes), with the production limits."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client

from dashboards.models import ApiToken

pytestmark = pytest.mark.django_db

LIMIT = 10  # the documented default of LOGIN_FAILURE_LIMIT


def login(password: str, user: str = "admin", address: str = "10.0.0.1"):
    return Client().post("/accounts/login/", {"username": user, "password": password}, REMOTE_ADDR=address)


def test_the_production_defaults_are_in_force():
    assert settings.AXES_FAILURE_LIMIT == LIMIT
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)


def test_it_refuses_even_the_right_password_after_the_limit_of_wrong_ones(admin_user):
    for _ in range(LIMIT - 1):
        assert login("wrong").status_code == 200  # the form again, "wrong user name or password"
    assert login("pw-for-tests").status_code == 302  # one short of the limit: still let in, and forgiven
    for _ in range(LIMIT):
        login("wrong")
    refused = login("pw-for-tests")
    assert refused.status_code == 429
    assert "Too many failed logins" in refused.content.decode() and "15 minutes" in refused.content.decode()


def test_the_user_stays_locked_from_another_address_and_the_address_for_another_user(admin_user, django_user_model):
    django_user_model.objects.create_user("viewer", password="viewer-pw")
    for _ in range(LIMIT):
        login("wrong", address="10.0.0.1")
    assert login("pw-for-tests", address="10.9.9.9").status_code == 429  # per user name
    assert login("viewer-pw", user="viewer", address="10.0.0.1").status_code == 429  # per address
    assert login("viewer-pw", user="viewer", address="10.9.9.9").status_code == 302


def test_a_spray_over_many_user_names_from_one_address_is_stopped(admin_user):
    for i in range(LIMIT):
        login("wrong", user=f"guess{i}")
    assert login("pw-for-tests").status_code == 429


def test_the_lock_ends_after_the_cool_off(admin_user):
    from axes.models import AccessAttempt

    for _ in range(LIMIT):
        login("wrong")
    assert login("pw-for-tests").status_code == 429
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.first().attempt_time - timedelta(minutes=16))
    assert login("pw-for-tests").status_code == 302


def test_api_tokens_are_not_throttled_by_a_locked_login(admin_user):
    raw = ApiToken.issue(admin_user, "runner")[1]
    for _ in range(LIMIT + 2):
        login("wrong", address="127.0.0.1")
    response = Client().get("/export/runs.csv", HTTP_AUTHORIZATION=f"Bearer {raw}", REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200


def test_a_user_name_longer_than_any_is_counted_not_a_500(admin_user):
    name = "x" * 5000
    for _ in range(LIMIT - 1):
        assert login("wrong", user=name, address="10.7.7.7").status_code == 200
    assert login("wrong", user=name, address="10.7.7.7").status_code == 429  # the limit-th failure locks
    assert login("wrong", user=name, address="10.8.8.8").status_code == 429  # counted under its first 150


def test_a_user_name_with_a_nul_is_a_form_error(admin_user):
    for _ in range(LIMIT + 1):  # refused by the form before any password is tried: nothing to count
        assert login("wrong", user="a\x00b").status_code == 200
