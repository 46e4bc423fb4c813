"""Login is required on every page, and CSRF protection is on."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

pytestmark = pytest.mark.django_db

OPEN = {"/accounts/login/"}
SAMPLES = {"int": "1", "uuid": "00000000-0000-0000-0000-000000000000", "path": "x/y"}  # by path converter


def all_paths(patterns=None, prefix: str = "") -> list[tuple[str, object]]:
    """Every URL of the project, with sample values for its parameters."""
    out = []
    for p in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            if route.startswith("admin/"):
                continue  # the admin, checked below
            out += all_paths(p.url_patterns, route)
        elif isinstance(p, URLPattern):
            path = "/" + re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: SAMPLES.get(m[1], "x"), route)
            out.append((path.replace("^", "").replace("$", ""), p.callback))
    return out


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
