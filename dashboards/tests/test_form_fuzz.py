"""The product's forms and the admin's for servers, runs, annotations and tokens, each field hostile alone.

No 500; a refusal shows a field error and changes nothing; what is saved holds no NUL and no time outside
the bounds (testing/form_fuzz.py). A viewer's POST is refused (403) and changes nothing.
"""

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from dashboards.models import ApiToken
from servers.models import Annotation, Run, Server
from testing.form_fuzz import VALUES, fuzz_form, raising_admin, refuse_controls, rows
from testing.servers import make_server

pytestmark = pytest.mark.django_db
START = datetime(2026, 1, 5, 12, tzinfo=UTC)


@pytest.fixture
def world(admin_user) -> dict:
    server = make_server("fuzz-db", port=1)
    run = Run.objects.create(name="r", server=server, started_at=START, sweep="s", concurrency=4)
    note = Annotation.objects.create(server=server, at=START, text="n")
    token, _raw = ApiToken.issue(admin_user, "t")
    return {"server": server, "run": run, "note": note, "token": token}


@pytest.fixture
def client(admin_user) -> Client:
    return raising_admin(admin_user)


def server_post(i: int) -> dict:
    # Port 1 on this host refuses at once: the connection test fails fast and "save anyway" saves.
    return {"name": f"s{i}", "host": "127.0.0.1", "port": "1", "socket": "", "user": "u", "password": "pw",
            "tls_mode": "preferred", "tls_ca": "", "tls_cert": "", "tls_key": "", "tags": "a,b",
            "poll_interval": "10", "statements_interval": "60", "node_exporter_url": "", "enabled": "on",
            "action": "save", "save_anyway": "on"}


def admin_server_post(i: int) -> dict:
    return {k: v for k, v in server_post(i).items() if k not in ("action", "save_anyway")}


def run_post(server: Server, prefix: str = "", split: bool = False) -> Callable[[int], dict]:
    def post(i: int) -> dict:
        times = ({"started_at_0": "2026-01-05", "started_at_1": "12:00:00", "ended_at_0": "2026-01-05",
                  "ended_at_1": "13:00:00"} if split else
                 {"started_at": "2026-01-05T12:00:00", "ended_at": "2026-01-05T13:00:00"})
        data = {"name": f"run {i}", "server": str(server.pk), **times, "notes": "n", "concurrency": "4",
                "warmup_seconds": "10", "sweep": "s", "label": "l"}
        if split:
            data.update({"annotations-TOTAL_FORMS": "0", "annotations-INITIAL_FORMS": "0"})
        return {prefix + k: v for k, v in data.items()}
    return post


def note_post(server: Server, prefix: str = "", split: bool = False) -> Callable[[int], dict]:
    def post(i: int) -> dict:
        times = {"at_0": "2026-01-05", "at_1": "12:00:00"} if split else {"at": "2026-01-05T12:00:00"}
        data = {"server": str(server.pk), **times, "text": f"note {i}"}
        if split:
            data["run"] = ""
        return {prefix + k: v for k, v in data.items()}
    return post


def check(outcome) -> None:
    print(f"{outcome.posts} posts; kept: {', '.join(outcome.kept[:60])}")
    assert outcome.posts > 0
    assert outcome.failures == [], "\n".join(outcome.failures[:40])


def test_it_refuses_hostile_server_fields_on_the_servers_page(client, world):
    check(fuzz_form(client, "/servers/add/", server_post, Server))
    edit = f"/servers/{world['server'].pk}/edit/"
    check(fuzz_form(client, edit, lambda i: {**server_post(i), "name": "fuzz-db"}, Server))


def test_it_refuses_hostile_server_fields_in_the_admin(client, world):
    check(fuzz_form(client, "/admin/servers/server/add/", admin_server_post, Server))
    change = f"/admin/servers/server/{world['server'].pk}/change/"
    check(fuzz_form(client, change, lambda i: {**admin_server_post(i), "name": "fuzz-db"}, Server))


def test_it_refuses_control_characters_in_a_servers_address_and_user(client, world):
    """"db\\x1b[31m" as a host or "u\\tx" as a user was saved and shown raw on the pages and in fleet.csv."""
    fields = ["host", "socket", "user"]
    edit = f"/servers/{world['server'].pk}/edit/"
    check(refuse_controls(client, "/servers/add/", server_post, Server, fields))
    check(refuse_controls(client, edit, lambda i: {**server_post(i), "name": "fuzz-db"}, Server, fields))
    check(refuse_controls(client, "/admin/servers/server/add/", admin_server_post, Server, fields))
    change = f"/admin/servers/server/{world['server'].pk}/change/"
    check(refuse_controls(client, change, lambda i: {**admin_server_post(i), "name": "fuzz-db"}, Server, fields))


def test_a_server_saved_before_the_check_still_shows(client):
    """A row saved before host, socket and user were checked loads and shows, its markup escaped."""
    server = Server.objects.create(name="old", host="db\x1b[31m<b>", user="u\x01<i>", password="p")
    for url in ("/servers/", f"/servers/{server.pk}/edit/", f"/servers/{server.pk}/stability/",
                "/admin/servers/server/", f"/admin/servers/server/{server.pk}/change/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "db\x1b[31m&lt;b&gt;" in response.content.decode(), url


def test_it_refuses_hostile_run_and_annotation_fields_on_the_runs_page(client, world):
    server = world["server"]
    check(fuzz_form(client, "/runs/", run_post(server, "run-"), Run))
    check(fuzz_form(client, "/runs/", note_post(server, "note-"), Annotation))


def test_it_refuses_hostile_run_and_annotation_fields_in_the_admin(client, world):
    server = world["server"]
    check(fuzz_form(client, "/admin/servers/run/add/", run_post(server, split=True), Run))
    check(fuzz_form(client, f"/admin/servers/run/{world['run'].pk}/change/", run_post(server, split=True), Run))
    check(fuzz_form(client, "/admin/servers/annotation/add/", note_post(server, split=True), Annotation))
    check(fuzz_form(client, f"/admin/servers/annotation/{world['note'].pk}/change/", note_post(server, split=True),
                    Annotation))


def test_it_refuses_hostile_token_names_and_ids(client, world):
    check(fuzz_form(client, "/tokens/", lambda i: {"name": f"t{i}"}, ApiToken, saved=200))
    check(fuzz_form(client, "/tokens/", lambda i: {"revoke": str(world["token"].pk)}, ApiToken))
    check(fuzz_form(client, f"/admin/dashboards/apitoken/{world['token'].pk}/change/", lambda i: {}, ApiToken,
                    fields=["name", "user", "hint"]))


def test_it_refuses_control_characters_in_a_token_name(client, world):
    check(refuse_controls(client, "/tokens/", lambda i: {"name": f"t{i}"}, ApiToken, ["name"]))


def test_it_refuses_hostile_sweep_labels(client, world):
    check(fuzz_form(client, "/scalability/", lambda i: {"sweep": "s", "label": f"l{i}"}, Run))


def test_valid_posts_still_save(client, world):
    server = world["server"]
    assert client.post("/servers/add/", server_post(1)).status_code == 302
    assert client.post("/admin/servers/server/add/", admin_server_post(2)).status_code == 302
    assert client.post("/runs/", run_post(server, "run-")(3)).status_code == 302
    assert client.post("/admin/servers/run/add/", run_post(server, split=True)(4)).status_code == 302
    assert client.post("/runs/", note_post(server, "note-")(5)).status_code == 302
    assert client.post("/admin/servers/annotation/add/", note_post(server, split=True)(6)).status_code == 302
    assert set(Server.objects.values_list("name", flat=True)) == {"fuzz-db", "s1", "s2"}
    assert set(Run.objects.values_list("name", flat=True)) == {"r", "run 3", "run 4"}
    assert Run.objects.get(name="run 3").ended_at == datetime(2026, 1, 5, 13, tzinfo=UTC)
    assert set(Annotation.objects.values_list("text", flat=True)) == {"n", "note 5", "note 6"}


def test_a_viewer_changes_nothing(django_user_model, world):
    viewer = django_user_model.objects.create_user("viewer", password="pw-for-tests")
    viewer.groups.add(Group.objects.get(name="viewers"))
    client = Client(raise_request_exception=True)
    client.force_login(viewer)
    server = world["server"]
    posts = [("/servers/add/", server_post(1)), (f"/servers/{server.pk}/edit/", server_post(2)),
             ("/runs/", run_post(server, "run-")(3)), ("/runs/", note_post(server, "note-")(4)),
             ("/admin/servers/server/add/", admin_server_post(5)), ("/scalability/", {"sweep": "s", "label": "x"})]
    before = [rows(m) for m in (Server, Run, Annotation)]
    for url, data in posts:
        for value in VALUES[:6]:
            response = client.post(url, {**data, "name": value})
            assert response.status_code in (302, 403), (url, response.status_code)
    assert [rows(m) for m in (Server, Run, Annotation)] == before


@pytest.mark.parametrize("label", ["\x1b[31mred", "bell\x07", "a\r\nb"])
def test_it_refuses_control_characters_in_a_sweep_label(client, world, label):
    response = client.post("/scalability/", {"sweep": "s", "label": label})
    assert response.status_code == 400
    assert "cannot hold control characters" in response.content.decode()
    assert list(Run.objects.values_list("label", flat=True)) == [""]


def test_it_still_labels_a_sweep_with_printable_text(client, world):
    assert client.post("/scalability/", {"sweep": "s", "label": "buffer pool 8G → 16G"}).status_code == 302
    assert list(Run.objects.values_list("label", flat=True)) == ["buffer pool 8G → 16G"]
