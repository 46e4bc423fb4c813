"""Login is required on every page, and CSRF protection is on."""


import pytest
from django.test import Client
from django.urls import resolve

from testing.urls import OPEN, all_paths

pytestmark = pytest.mark.django_db

def test_every_page_redirects_an_anonymous_user_to_the_login():
    paths = [(p, view) for p, view in all_paths() if p not in OPEN and getattr(view, "login_required", True)]
    assert "/servers/" in [p for p, _ in paths]
    client = Client()
    for path, _ in paths:
        resolve(path)  # the sample values fit the route
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/accounts/login/?next="), path


def test_the_admin_asks_for_its_login():
    response = Client().get("/admin/servers/server/")
    assert response.status_code == 302 and "/login/?next=/admin/servers/server/" in response["Location"]


def test_the_login_page_is_open():
    assert Client().get("/accounts/login/").status_code == 200


def test_a_post_without_csrf_token_is_refused(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.post("/servers/add/", {"name": "x", "host": "h", "user": "u", "password": "p",
                                             "port": 3306, "poll_interval": 10, "action": "save"})
    assert response.status_code == 403
    from servers.models import Server

    assert not Server.objects.exists()


def test_a_login_without_csrf_token_is_refused(admin_user):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "admin", "password": "pw-for-tests"})
    assert response.status_code == 403
