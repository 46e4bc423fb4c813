"""Hostile input to the API and the tokens page gets a 4xx that says what to fix, never a 500."""

import json

import pytest
from django.test import Client

from dashboards.models import ApiToken
from servers.models import Annotation, Run
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db

NUL, SURROGATE = "a\x00b", "a\ud800b"


@pytest.fixture
def token(admin_user):
    return ApiToken.issue(admin_user, "runner")[1]


def post(url: str, token: str, body: dict | None = None, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body)  # json.dumps writes a lone surrogate as \ud800
    return Client().post(url, data, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.mark.parametrize("field", ["name", "notes", "sweep", "label", "command", "server"])
@pytest.mark.parametrize("bad", [NUL, SURROGATE])
def test_a_run_field_with_a_nul_or_a_lone_surrogate_is_a_400_naming_it(token, field, bad):
    server = make_server()
    body = {"name": "r", "server": server.pk, field: bad}
    response = post("/api/runs", token, body)
    assert response.status_code == 400, response.content
    assert f"'{field}'" in response.json()["error"]
    assert not Run.objects.exists()


@pytest.mark.parametrize("bad", [NUL, SURROGATE])
def test_an_annotation_text_or_server_with_a_nul_or_a_lone_surrogate_is_a_400(token, bad):
    make_server()
    for body in ({"text": bad}, {"text": "t", "server": bad}, {"text": "t", "at": bad}, {"text": "t", "run": bad}):
        response = post("/api/annotations", token, body)
        assert response.status_code == 400, (body, response.content)
        assert f"'{next(k for k, v in body.items() if v == bad)}'" in response.json()["error"]
    assert not Annotation.objects.exists()


def test_a_nul_in_a_nested_value_and_a_key_is_a_400(token):
    server = make_server()
    response = post("/api/runs", token, {"name": "r", "server": server.pk, "notes": ["x", {"y": NUL}]})
    assert response.status_code == 400 and "'notes'" in response.json()["error"]
    response = post("/api/runs", token, {"name": "r", "server": server.pk, NUL: 1})
    assert response.status_code == 400 and "NUL" in response.json()["error"]


def test_an_end_with_a_nul_summary_is_a_400(token):
    from datetime import UTC, datetime

    run = Run.objects.create(name="r", server=make_server(), started_at=datetime(2026, 1, 5, tzinfo=UTC))
    response = post(f"/api/runs/{run.pk}/end", token, {"tool_summary": NUL})
    assert response.status_code == 400 and "'tool_summary'" in response.json()["error"]


@pytest.mark.parametrize("depth", [100_000, 1_000])
def test_deeply_nested_json_is_a_400(token, depth):
    response = post("/api/runs", token, raw=b"[" * depth + b"]" * depth)
    assert response.status_code == 400
    assert response.json()["error"].startswith("the body")


def test_a_body_that_is_not_utf8_is_a_400(token):
    response = post("/api/runs", token, raw=b'{"name": "\xff"}')
    assert response.status_code == 400 and "not JSON" in response.json()["error"]


def test_huge_ids_are_a_400_not_an_overflow(token):
    for body in ({"name": "r", "server": 10**30}, {"name": "r", "server": -1}):
        response = post("/api/runs", token, body)
        assert response.status_code == 400 and "no server" in response.json()["error"], response.content
    response = post("/api/annotations", token, {"text": "t", "run": 10**30})
    assert response.status_code == 400 and "no run" in response.json()["error"]


def test_revoking_a_token_that_is_not_a_number_is_a_400(admin_user):
    mine = ApiToken.issue(admin_user, "keep")[0]
    client = Client()
    client.force_login(admin_user)
    for bad in ("abc", "1" * 30, "-1", NUL):
        response = client.post("/tokens/", {"revoke": bad})
        assert response.status_code == 400, bad
        assert "is not a token id" in response.content.decode()
    assert ApiToken.objects.filter(pk=mine.pk).exists()
    response = client.post("/tokens/", {"revoke": str(mine.pk)}, follow=True)
    assert response.status_code == 200 and not ApiToken.objects.exists()
