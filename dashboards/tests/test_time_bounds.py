"""Times out of 1970-2100 are refused at every entry (API, runs form, admin), and pages keep answering."""

import importlib
import json
from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client

from dashboards.models import ApiToken
from servers.models import Annotation, Run
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db

EDGES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1969-12-31T23:59:59Z", "2100-01-01T00:00:01Z"]


@pytest.fixture
def client(admin_user):
    c = Client()
    c.force_login(admin_user)
    return c


@pytest.fixture
def token(admin_user):
    return ApiToken.issue(admin_user, "runner")[1]


def api(url: str, body: dict, token: str):
    return Client().post(url, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def pages(run: Run) -> list[str]:
    sid = run.server_id
    return ["/runs/", "/export/runs.csv", f"/servers/{sid}/stability/", f"/servers/{sid}/purge/",
            f"/servers/{sid}/pressure/", f"/servers/{sid}/host/", f"/explore/?server={sid}",
            f"/runs/{run.pk}/report/", f"/compare/?runs={run.pk}", "/admin/servers/run/",
            f"/admin/servers/run/{run.pk}/change/", f"/admin/servers/run/{run.pk}/delete/"]


@pytest.mark.parametrize("edge", EDGES)
def test_the_api_refuses_a_run_start_out_of_range_and_pages_answer(client, token, edge):
    server = make_server()
    response = api("/api/runs", {"name": "r", "server": server.pk, "started_at": edge}, token)
    assert response.status_code == 400, response.content
    assert "started_at" in response.json()["error"] and "1970" in response.json()["error"]
    assert not Run.objects.exists()
    run = Run.objects.create(name="ok", server=server, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    for url in pages(run):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("edge", EDGES)
def test_the_api_refuses_an_end_and_an_annotation_out_of_range(token, edge):
    server = make_server()
    run = Run.objects.create(name="ok", server=server, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    response = api(f"/api/runs/{run.pk}/end", {"ended_at": edge}, token)
    assert response.status_code == 400 and "ended_at" in response.json()["error"], response.content
    response = api("/api/annotations", {"server": server.pk, "text": "t", "at": edge}, token)
    assert response.status_code == 400 and "'at'" in response.json()["error"], response.content
    assert not Annotation.objects.exists()
    run.refresh_from_db()
    assert run.ended_at is None


def test_the_api_takes_the_bounds_themselves(token):
    server = make_server()
    response = api("/api/runs", {"name": "r", "server": server.pk, "started_at": "1970-01-01T00:00:00Z",
                                 "ended_at": "2100-01-01T00:00:00Z"}, token)
    assert response.status_code == 201, response.content


@pytest.mark.parametrize("typed", ["0001-01-01T00:00:00", "9999-12-31T23:59:59", "1969-12-31T23:59:59"])
def test_the_runs_form_refuses_a_time_out_of_range(client, typed):
    server = make_server()
    response = client.post("/runs/", {"run-name": "r", "run-server": server.pk, "run-started_at": typed,
                                      "run-warmup_seconds": 0})
    assert response.status_code == 200 and not Run.objects.exists()
    assert "1970" in response.content.decode()
    response = client.post("/runs/", {"note-server": server.pk, "note-at": typed, "note-text": "t"})
    assert response.status_code == 200 and not Annotation.objects.exists()
    assert client.get("/runs/").status_code == 200


def test_the_admin_refuses_a_time_out_of_range(client):
    server = make_server()
    response = client.post("/admin/servers/run/add/", {
        "name": "r", "server": server.pk, "started_at_0": "0001-01-01", "started_at_1": "00:00:00",
        "warmup_seconds": 0, "notes": ""})
    assert response.status_code == 200 and not Run.objects.exists()
    assert "1970" in response.content.decode()


def test_the_database_refuses_what_skips_validation():
    server = make_server()
    for edge in ("0001-01-01T00:00:00+01:00", "2100-01-01T00:00:01Z"):
        ts = datetime.fromisoformat(edge)
        with pytest.raises(IntegrityError), transaction.atomic():
            Run.objects.create(name="r", server=server, started_at=ts)
        with pytest.raises(IntegrityError), transaction.atomic():
            Annotation.objects.create(server=server, text="t", at=ts)
    run = Run.objects.create(name="ok", server=server, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    with connection.cursor() as cur, pytest.raises(IntegrityError), transaction.atomic():
        cur.execute("UPDATE servers_run SET ended_at = '9999-01-01 00:00+00' WHERE id = %s", [run.pk])


def test_the_upgrade_clamps_rows_stored_before_the_check_and_keeps_their_times(client):
    clamp = importlib.import_module("servers.migrations.0004_times_within_bounds")
    server = make_server()
    with connection.cursor() as cur:  # rolled back with the test: DDL is transactional in PostgreSQL
        for name in ("run_started_within_bounds", "run_ended_within_bounds"):
            cur.execute(f"ALTER TABLE servers_run DROP CONSTRAINT {name}")
        cur.execute("ALTER TABLE servers_annotation DROP CONSTRAINT annotation_at_within_bounds")
        cur.execute("INSERT INTO servers_run (name, server_id, started_at, ended_at, notes, created_at, warmup_seconds,"
                    " sweep, label, command, tool_summary, client_figures) VALUES ('bad', %s, '0001-01-01 00:00+01',"
                    " '9999-12-31 23:59:59-01', 'build 7', now(), 0, '', '', '', '', '{}') RETURNING id", [server.pk])
        run_id = cur.fetchone()[0]
        cur.execute("INSERT INTO servers_annotation (server_id, at, text, created_at)"
                    " VALUES (%s, '0001-01-01 00:00+01', 'typo', now())", [server.pk])
        with pytest.raises(Exception, match="too small"):  # the break: year 0 in UTC cannot be read back
            Run.objects.get(pk=run_id)
        cur.execute(clamp.CLAMP_RUNS)
        cur.execute(clamp.CLAMP_ANNOTATIONS)
    run, note = Run.objects.get(pk=run_id), Annotation.objects.get()
    assert (run.started_at, run.ended_at) == (datetime(1970, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))
    assert run.notes == ("build 7\nClamped to 1970-2100 on upgrade; was: started 0001-12-31 23:00:00+00 BC,"
                         " ended 10000-01-01 00:59:59+00")
    assert note.at == datetime(1970, 1, 1, tzinfo=UTC)
    assert note.text == "typo (clamped to 1970-2100 on upgrade; was 0001-12-31 23:00:00+00 BC)"
    for url in pages(run):
        assert client.get(url).status_code == 200, url


ADMIN_ADDS = ["/admin/servers/run/add/", "/admin/servers/annotation/add/", "/admin/alerts/event/add/"]


@pytest.mark.parametrize("url", ADMIN_ADDS)
def test_the_admin_add_page_survives_bad_times_in_its_query_string(client, url):
    for value in ("garbage", "0001-01-01T00:00:00+01:00", "2026-02-30T00:00:00", "\x00"):
        response = client.get(url, {"started_at": value, "ended_at": value, "at": value, "since": value})
        assert response.status_code == 200, (url, value)
    page = client.get(url, {"started_at": "2026-01-05T12:00:00", "at": "2026-01-05T12:00:00",
                            "since": "2026-01-05T12:00:00"}).content.decode()
    assert 'value="2026-01-05"' in page  # a good one is still taken


# ISO 8601 (and Python) allow offsets up to ±23:59, PostgreSQL only ±15:59: such a time was sent as given and the
# INSERT failed, a 500. By hand: 2026-11-27 14:00 at +23:59 is 2026-11-26 14:01 UTC; 14:00 at -20:00 is 28 Nov 10:00.
FAR_EAST, FAR_EAST_UTC = "2026-11-27T14:00:00+23:59", datetime(2026, 11, 26, 14, 1, tzinfo=UTC)
FAR_WEST, FAR_WEST_UTC = "2026-11-27T14:00:00-20:00", datetime(2026, 11, 28, 10, 0, tzinfo=UTC)


def test_the_api_stores_a_time_with_an_offset_beyond_postgresqls(token):
    server = make_server()
    response = api("/api/runs", {"name": "r", "server": server.pk, "started_at": FAR_EAST,
                                 "ended_at": FAR_WEST}, token)
    assert response.status_code == 201, response.content
    response = api("/api/annotations", {"server": server.pk, "text": "t", "at": FAR_WEST}, token)
    assert response.status_code == 201, response.content
    run = Run.objects.get()
    assert (run.started_at, run.ended_at, Annotation.objects.get().at) == (FAR_EAST_UTC, FAR_WEST_UTC, FAR_WEST_UTC)


def test_the_runs_form_stores_a_time_with_an_offset_beyond_postgresqls(client):
    server = make_server()
    response = client.post("/runs/", {"run-name": "r", "run-server": server.pk, "run-started_at": FAR_EAST,
                                      "run-warmup_seconds": 0})
    assert response.status_code == 302, response.content
    response = client.post("/runs/", {"note-server": server.pk, "note-at": FAR_WEST, "note-text": "t"})
    assert response.status_code == 302, response.content
    assert (Run.objects.get().started_at, Annotation.objects.get().at) == (FAR_EAST_UTC, FAR_WEST_UTC)
