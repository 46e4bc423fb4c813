"""Roles: viewers read, operators also mark runs/annotations and edit alert rules, admins also own servers."""

import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import resolve

from alerts.models import Rule
from dashboards.models import ApiToken
from monitor.roles import ADMIN, GROUPS, OPERATOR, POLICY, VIEWER
from servers.models import Run, Server
from testing.urls import OPEN, all_paths

pytestmark = pytest.mark.django_db

RANK = {None: 0, VIEWER: 1, OPERATOR: 2, ADMIN: 3}
# What each role may do, written out from the issue rather than read from POLICY:
# (path pattern's view name, role to read, role to change).
EXPECTED = {
    "servers:list": (VIEWER, ADMIN), "servers:add": (ADMIN, ADMIN), "servers:edit": (ADMIN, ADMIN),
    "servers:test": (ADMIN, ADMIN), "servers:delete": (ADMIN, ADMIN), "servers:load": (ADMIN, ADMIN),
    "servers:import_run": (ADMIN, ADMIN),
    "alerts:index": (VIEWER, OPERATOR), "alerts:event": (VIEWER, OPERATOR),
    "alerts:rule_new": (OPERATOR, OPERATOR), "alerts:rule_edit": (OPERATOR, OPERATOR),
    "alerts:rule_toggle": (OPERATOR, OPERATOR), "alerts:rule_delete": (OPERATOR, OPERATOR),
    "alerts:test_email": (OPERATOR, OPERATOR),
    "dashboards:tokens": (VIEWER, VIEWER),
    "dashboards:api-annotations": (OPERATOR, OPERATOR), "dashboards:api-runs": (OPERATOR, OPERATOR),
    "dashboards:api-run-end": (OPERATOR, OPERATOR),
    "dashboards:demo-load": (OPERATOR, OPERATOR),  # operators may pause the demo's load
    "export-csv": (VIEWER, VIEWER), "export-topwaits": (VIEWER, VIEWER), "export-compare": (VIEWER, VIEWER),
    "export-annotations": (VIEWER, VIEWER), "export-runs": (VIEWER, VIEWER), "export-fleet": (VIEWER, VIEWER),
    "export-scalability": (VIEWER, VIEWER), "export-holders": (VIEWER, VIEWER),
    "export-statements": (VIEWER, VIEWER), "export-statement": (VIEWER, VIEWER),
}
PAGES = ("fleet", "stability", "purge", "waits", "explore", "runs", "compare", "pressure", "replication",
         "scalability", "host", "statements", "statement")
EXPECTED |= {f"dashboards:{p}": (VIEWER, OPERATOR) for p in PAGES}
EXPECTED |= {"run-export": (VIEWER, VIEWER), "run-report": (VIEWER, OPERATOR), "compare-report": (VIEWER, OPERATOR),
             "scalability-report": (VIEWER, OPERATOR)}


def user_with(django_user_model, role: str | None, name: str | None = None):
    user = django_user_model.objects.create_user(name or f"u-{role}", password="pw")
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def clients(django_user_model) -> dict:
    out = {}
    for role in (None, VIEWER, OPERATOR, ADMIN):
        client = Client()
        client.force_login(user_with(django_user_model, role))
        out[role] = client
    return out


def routed_paths() -> list[tuple[str, str]]:
    return [(path, resolve(path).view_name) for path, _ in all_paths() if path not in OPEN]


def test_the_groups_exist_and_admins_hold_every_permission():
    assert set(Group.objects.filter(name__in=GROUPS).values_list("name", flat=True)) == set(GROUPS)
    assert Group.objects.get(name=ADMIN).permissions.count() == Permission.objects.count() > 0


def test_every_view_has_a_written_rule():
    names = {name for _, name in routed_paths()} - {"logout"}
    assert names - POLICY.keys() == set()
    assert names == EXPECTED.keys()


def test_each_role_reads_what_it_may_and_no_more(clients):
    for path, name in routed_paths():
        if name == "logout":
            continue
        needed = EXPECTED[name][0]
        for role, client in clients.items():
            status = client.get(path).status_code
            if name.startswith("dashboards:api"):
                continue  # POST only: below
            assert (status == 403) == (RANK[role] < RANK[needed]), (path, role, status)


def test_each_role_changes_what_it_may_and_no_more(clients):
    server = Server.objects.create(name="db1", host="h", user="u", password="p")
    run = Run.objects.create(name="r", server=server, started_at=datetime(2026, 1, 5, tzinfo=UTC))
    rule = Rule.objects.create(name="r1", kind="metric_above", metric="tps", threshold=1)
    for path, name in routed_paths():
        path = path.replace("/1/", f"/{server.pk}/").replace("/runs/1/", f"/runs/{run.pk}/")
        if name.startswith("alerts:rule_"):
            path = path.replace(f"/{server.pk}/", f"/{rule.pk}/")
        needed = EXPECTED.get(name, (None, None))[1]
        for role, client in clients.items():
            if RANK[role] < RANK[needed]:
                assert client.post(path).status_code == 403, (path, role)
    assert Server.objects.filter(pk=server.pk).exists() and Rule.objects.filter(pk=rule.pk, enabled=True).exists()


def test_an_operator_edits_rules_and_an_admin_deletes_servers(clients):
    rule = Rule.objects.create(name="r1", kind="metric_above", metric="tps", threshold=1)
    assert clients[OPERATOR].post(f"/alerts/rules/{rule.pk}/toggle/").status_code == 302
    assert not Rule.objects.get(pk=rule.pk).enabled
    server = Server.objects.create(name="db1", host="h", user="u", password="p")
    assert clients[OPERATOR].post(f"/servers/{server.pk}/delete/").status_code == 403
    assert clients[ADMIN].post(f"/servers/{server.pk}/delete/").status_code == 302
    assert not Server.objects.exists()


def test_a_user_without_a_role_is_told_to_ask_an_admin(clients):
    response = clients[None].get("/")
    assert response.status_code == 403 and "no role yet" in response.content.decode()


def test_the_admin_site_is_for_admins(clients):
    for role, client in clients.items():
        status = client.get("/admin/servers/server/").status_code
        assert (status == 403) == (role != ADMIN), (role, status)


def test_pages_offer_only_what_the_role_may_do(clients):
    Server.objects.create(name="db1", host="h", user="u", password="p")
    assert "Add a server" not in clients[VIEWER].get("/servers/").content.decode()
    assert "Add a server" in clients[ADMIN].get("/servers/").content.decode()
    assert "New rule" not in clients[VIEWER].get("/alerts/").content.decode()
    assert "New rule" in clients[OPERATOR].get("/alerts/").content.decode()
    assert "Mark a run" not in clients[VIEWER].get("/runs/").content.decode()
    assert "Mark a run" in clients[OPERATOR].get("/runs/").content.decode()


def api_post(token: str, url: str, body: dict):
    return Client().post(url, json.dumps(body), content_type="application/json",
                         HTTP_AUTHORIZATION=f"Bearer {token}")


def test_a_token_acts_with_its_owners_role(django_user_model):
    Server.objects.create(name="lab3", host="h", user="u", password="p")
    body = {"name": "run", "server": "lab3", "started_at": "2026-01-05T12:00:00Z"}
    viewer = ApiToken.issue(user_with(django_user_model, VIEWER), "v")[1]
    operator = ApiToken.issue(user_with(django_user_model, OPERATOR), "o")[1]
    nobody = ApiToken.issue(user_with(django_user_model, None), "n")[1]
    refused = api_post(viewer, "/api/runs", body)
    assert refused.status_code == 403 and "operators role" in refused.json()["error"]
    assert api_post(operator, "/api/runs", body).status_code == 201
    assert Run.objects.count() == 1
    csv = "/export/annotations.csv?server=lab3&range=1h"
    assert Client().get(csv, HTTP_AUTHORIZATION=f"Bearer {viewer}").status_code == 200
    assert Client().get(csv, HTTP_AUTHORIZATION=f"Bearer {nobody}").status_code == 403
    assert Client().get(csv, HTTP_AUTHORIZATION="Bearer ss_wrong").status_code == 401
