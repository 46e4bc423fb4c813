"""Users and roles in the admin (Django's user and group forms) and the login form, each field hostile alone.

No 500; a refusal shows a field error and changes nothing; nothing saved holds a NUL or a time outside
the bounds (testing/form_fuzz.py).
"""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from testing.form_fuzz import VALUES, fuzz_form, raising_admin, refuse_controls

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(admin_user) -> Client:
    return raising_admin(admin_user)


def check(outcome) -> None:
    assert outcome.posts > 0
    assert outcome.failures == [], "\n".join(outcome.failures[:40])


def new_user(i: int) -> dict:
    return {"username": f"user{i}", "password1": "a long pass phrase 1", "password2": "a long pass phrase 1",
            "usable_password": "true"}


def test_it_refuses_hostile_fields_of_a_new_user(client):
    check(fuzz_form(client, "/admin/auth/user/add/", new_user, User))


def test_it_refuses_hostile_fields_of_a_user(client):
    user = User.objects.create_user("someone", password="pw-for-tests")
    group = Group.objects.get(name="viewers")

    def change(i: int) -> dict:
        return {"username": "someone", "first_name": "a", "last_name": "b", "email": "a@example.com",
                "is_active": "on", "groups": str(group.pk), "last_login_0": "2026-01-05", "last_login_1": "12:00:00",
                "date_joined_0": "2026-01-05", "date_joined_1": "12:00:00"}
    check(fuzz_form(client, f"/admin/auth/user/{user.pk}/change/", change, User))


def test_it_refuses_control_characters_in_a_users_names(client):
    """Django's username check refused them as "Enter a valid username"; first and last names took them all."""
    check(refuse_controls(client, "/admin/auth/user/add/", new_user, User, ["username"]))
    user = User.objects.create_user("someone", password="pw-for-tests")

    def change(i: int) -> dict:
        return {"username": "someone", "first_name": "a", "last_name": "b", "email": "a@example.com",
                "is_active": "on", "date_joined_0": "2026-01-05", "date_joined_1": "12:00:00"}
    check(refuse_controls(client, f"/admin/auth/user/{user.pk}/change/", change, User,
                          ["username", "first_name", "last_name"]))


def test_it_refuses_hostile_fields_of_a_group(client):
    permission = Permission.objects.order_by("pk").first()
    assert permission is not None
    check(fuzz_form(client, "/admin/auth/group/add/", lambda i: {"name": f"g{i}", "permissions": str(permission.pk)},
                    Group))


def test_valid_user_and_group_posts_still_save(client):
    assert client.post("/admin/auth/user/add/", new_user(1)).status_code == 302
    assert client.post("/admin/auth/group/add/", {"name": "g1"}).status_code == 302
    assert User.objects.get(username="user1").check_password("a long pass phrase 1")
    assert Group.objects.filter(name="g1").exists()


def test_the_login_form_refuses_hostile_credentials():
    client = Client(raise_request_exception=True)
    for field in ("username", "password"):
        for value in VALUES:
            data = {"username": "nobody", "password": "x", field: value}
            assert client.post("/accounts/login/", data).status_code < 500, (field, value[:30])


@pytest.mark.parametrize("field", ["last_login", "date_joined"])
@pytest.mark.parametrize("day", ["0001-01-01", "1969-12-31", "9999-12-31"])
def test_it_refuses_a_user_time_outside_the_bounds(client, field, day):
    user = User.objects.create_user("someone", password="pw-for-tests")
    joined = user.date_joined
    data = {"username": "someone", "is_active": "on", "date_joined_0": "2026-01-05", "date_joined_1": "12:00:00",
            f"{field}_0": day, f"{field}_1": "12:00:00"}
    response = client.post(f"/admin/auth/user/{user.pk}/change/", data)
    assert response.status_code == 200
    assert "between 1970-01-01 and 2100-01-01" in response.content.decode()
    user.refresh_from_db()
    assert (user.date_joined, user.last_login) == (joined, None)


def test_it_still_saves_a_user_time_within_the_bounds(client):
    user = User.objects.create_user("someone", password="pw-for-tests")
    data = {"username": "someone", "is_active": "on", "date_joined_0": "2026-01-05", "date_joined_1": "12:00:00"}
    assert client.post(f"/admin/auth/user/{user.pk}/change/", data).status_code == 302
    user.refresh_from_db()
    assert user.date_joined == datetime(2026, 1, 5, 12, tzinfo=UTC)
