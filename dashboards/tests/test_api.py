"""POST /api/runs and /api/annotations with a bearer token, as scripts call them."""

import json
from datetime import UTC, datetime

import pytest
from django.test import Client

from dashboards.models import ApiToken
from servers.models import Annotation, Run
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(admin_user):
    return ApiToken.issue(admin_user, "runner")[1]


def post(url, body, token=None, raw=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client(enforce_csrf_checks=True).post(
        url, raw if raw is not None else json.dumps(body), content_type="application/json", **headers)


def test_it_creates_a_run_by_server_name(token):
    server = make_server("lab3")
    response = post("/api/runs", {"name": "rw 32 threads", "server": "lab3",
                                  "started_at": "2026-01-05T12:00:00Z", "notes": "flush_neighbors=1"}, token)
    assert response.status_code == 201, response.content
    run = Run.objects.get()
    assert (run.server, run.notes) == (server, "flush_neighbors=1")
    assert run.started_at == datetime(2026, 1, 5, 12, tzinfo=UTC)
    assert response.json()["id"] == run.pk and response.json()["ended_at"] is None


def test_it_ends_a_run(token):
    server = make_server()
    run = Run.objects.create(name="r", server=server, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    response = post(f"/api/runs/{run.pk}/end", {"ended_at": "2026-01-05T12:30:00"}, token)
    assert response.status_code == 200
    run.refresh_from_db()
    assert run.ended_at == datetime(2026, 1, 5, 12, 30, tzinfo=UTC)
    assert post(f"/api/runs/{run.pk}/end", {"ended_at": "2026-01-05T11:00:00"}, token).status_code == 400


def test_it_creates_an_annotation_now_by_default(token):
    server = make_server()
    response = post("/api/annotations", {"server": server.pk, "text": "SET GLOBAL innodb_max_purge_lag=1e6"}, token)
    assert response.status_code == 201
    note = Annotation.objects.get()
    assert note.server == server and (datetime.now(UTC) - note.at).total_seconds() < 60


def test_an_annotation_of_a_run_is_on_the_runs_server(token):
    db1 = make_server("db1")
    make_server("db2")
    run = Run.objects.create(name="r", server=db1, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    response = post("/api/annotations", {"server": "db2", "run": run.pk, "text": "x"}, token)
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"run {run.pk} is on server 'db1', not 'db2'")
    assert not Annotation.objects.exists()
    assert post("/api/annotations", {"run": run.pk, "text": "x"}, token).json()["server"] == db1.pk
    assert post("/api/annotations", {"server": "db1", "run": run.pk, "text": "x"}, token).status_code == 201


def test_a_fleet_wide_annotation_has_no_server(token):
    assert post("/api/annotations", {"text": "kernel upgrade"}, token).status_code == 201
    assert Annotation.objects.get().server is None


def test_an_empty_server_is_refused_not_read_as_fleet_wide(token):
    """An empty server ("") made an annotation on every server's charts: a script whose variable was empty."""
    make_server("db1")
    response = post("/api/annotations", {"server": "", "text": "kernel upgrade"}, token)
    assert response.status_code == 400
    assert response.json()["error"] == ("'server' is empty: leave it out (or send null) to annotate every server's "
                                        "charts, or give a server's id or name")
    assert not Annotation.objects.exists()
    assert post("/api/annotations", {"server": None, "text": "kernel upgrade"}, token).status_code == 201
    assert Annotation.objects.get().server is None


def test_it_refuses_missing_or_wrong_tokens(token):
    make_server()
    assert post("/api/annotations", {"text": "x"}).status_code == 401
    assert post("/api/annotations", {"text": "x"}, "sst_not-a-token").status_code == 401
    assert post("/api/annotations", {"text": "x"}, token[:-1]).status_code == 401
    assert Annotation.objects.count() == 0


def test_a_revoked_user_cannot_post(token, admin_user):
    admin_user.is_active = False
    admin_user.save()
    assert post("/api/annotations", {"text": "x"}, token).status_code == 401


def test_it_explains_bad_requests(token):
    make_server("db1")
    cases = [
        ({"name": "r"}, "'server'"),
        ({"name": "r", "server": "nope"}, "no server 'nope'"),
        ({"name": "r", "server": "db1", "started_at": "noon"}, "ISO 8601"),
        ({"name": "r", "server": "db1", "started_at": "2026-01-05T12:00:00", "ended_at": "2026-01-05T11:00:00"},
         "before"),
        ({"server": "db1"}, "'name' is required"),
    ]
    for body, message in cases:
        response = post("/api/runs", body, token)
        assert response.status_code == 400 and message in response.json()["error"], body
    assert post("/api/runs", None, token, raw="{not json").status_code == 400
    assert Run.objects.count() == 0


def test_a_body_too_large_is_refused_in_json_saying_the_limit(token, settings):
    """It was Django's HTML "Bad Request (400)", saying nothing a script could act on."""
    make_server("db1")
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post("/api/runs", {"name": "r", "server": "db1", "tool_summary": "x" * 2000}, token)
    assert response.status_code == 400
    assert response.json()["error"] == ("the body is larger than 1,000 bytes (DATA_UPLOAD_MAX_MEMORY_SIZE): "
                                        "send a shorter notes or tool_summary")
    assert Run.objects.count() == 0


def test_only_the_hash_is_stored(admin_user):
    token, raw = ApiToken.issue(admin_user, "ci")
    assert raw not in (token.digest, token.hint) and len(token.digest) == 64
    assert ApiToken.objects.authenticate(raw) == token
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_the_tokens_page_shows_a_new_token_once(client, admin_user):
    client.force_login(admin_user)
    body = client.post("/tokens/", {"name": "sysbench runner"}).content.decode()
    token = ApiToken.objects.get()
    raw = body.split('id="new-token">')[1].split("<")[0]
    assert ApiToken.objects.authenticate(raw) == token
    assert raw not in client.get("/tokens/").content.decode()


def test_it_records_a_step_of_a_sweep(token):
    make_server("lab3")
    body = {"name": "rw x16", "server": "lab3", "concurrency": 16, "warmup_seconds": 10, "sweep": "rw",
            "label": "innodb_flush_neighbors=0", "command": "sysbench oltp_read_write --threads=16 run"}
    response = post("/api/runs", body, token)
    assert response.status_code == 201, response.content
    run = Run.objects.get()
    assert (run.concurrency, run.warmup_seconds, run.sweep, run.label) == (16, 10, "rw", "innodb_flush_neighbors=0")
    assert response.json()["concurrency"] == 16 and response.json()["command"].startswith("sysbench")
    ended = post(f"/api/runs/{run.pk}/end", {"tool_summary": "transactions: 1600 (160.00 per sec.)"}, token)
    assert ended.json()["tool_summary"] == "transactions: 1600 (160.00 per sec.)"


def test_a_summary_sent_to_an_ended_run_keeps_its_end(token):
    server = make_server()
    run = Run.objects.create(name="r", server=server, started_at=datetime(2026, 1, 5, 12, tzinfo=UTC),
                             ended_at=datetime(2026, 1, 5, 12, 10, tzinfo=UTC))
    response = post(f"/api/runs/{run.pk}/end", {"tool_summary": "transactions: 96000 (160.00 per sec.)"}, token)
    assert response.status_code == 200, response.content
    run.refresh_from_db()
    # ended at 12:10 as marked, not at the time of this call (today): its average TPS stays over its 600 s
    assert run.ended_at == datetime(2026, 1, 5, 12, 10, tzinfo=UTC)
    assert run.tool_summary == "transactions: 96000 (160.00 per sec.)"


@pytest.mark.parametrize("bad, message", [
    ({"concurrency": 0}, "'concurrency' must be between 1 and"),
    ({"concurrency": "many"}, "'concurrency' must be a whole number"),
    ({"concurrency": True}, "'concurrency' must be a whole number"),
    # "4" was taken for 4 (docs/api.md: a whole number); the collector's API refused it.
    ({"concurrency": "4"}, "'concurrency' must be a whole number (a JSON number such as 4, not a string or "
                           "true/false), got \"4\""),
    ({"concurrency": 4.0}, "'concurrency' must be a whole number (a JSON number such as 4, not a string or "
                           "true/false), got 4.0"),
    ({"warmup_seconds": "10"}, "'warmup_seconds' must be a whole number (a JSON number such as 4, not a string "
                               "or true/false), got \"10\""),
    ({"warmup_seconds": False}, "'warmup_seconds' must be a whole number (a JSON number such as 4, not a string "
                                "or true/false), got false"),
    ({"warmup_seconds": -5}, "'warmup_seconds' must be between 0 and"),
    ({"label": "x" * 201}, "'label' is longer than 200"),
])
def test_bad_study_fields_are_refused_and_nothing_is_recorded(token, bad, message):
    make_server("lab3")
    response = post("/api/runs", {"name": "r", "server": "lab3", **bad}, token)
    assert response.status_code == 400 and message in response.json()["error"]
    assert not Run.objects.exists()


@pytest.mark.parametrize("bad, message", [
    ({"server": True}, "'server' must be an id (a whole number) or a name (a string), got true"),
    ({"server": [1]}, "'server' must be an id (a whole number) or a name (a string), got [1]"),
    ({"notes": {"a": 1}}, "'notes' must be a string, got {\"a\": 1}"),
    ({"name": ["r"]}, "'name' must be a string, got [\"r\"]"),
    ({"label": 12}, "'label' must be a string, got 12"),
])
def test_values_of_the_wrong_json_type_are_refused_not_stored_as_python_text(token, bad, message):
    """Seen: {"server": true} made a run on server 1 (True == 1 to Python) and {"notes": {"a": 1}} stored the
    notes "{'a': 1}", Python's repr, which no script sent."""
    make_server("lab3")
    response = post("/api/runs", {"name": "r", "server": "lab3", **bad}, token)
    assert response.status_code == 400 and response.json()["error"] == message
    assert not Run.objects.exists()
    note = post("/api/annotations", {"text": ["flush"], "server": "lab3"}, token)
    assert note.status_code == 400 and note.json()["error"] == "'text' must be a string, got [\"flush\"]"



WHOLE = "'run' must be a whole number (a JSON number such as 4, not a string or true/false), got "


@pytest.mark.parametrize(("given", "error"), [
    ("1.0", WHOLE + "1.0"),
    ("true", WHOLE + "true"),
    ("[1]", WHOLE + "[1]"),
    ("99999999999999999999999", "no run 99999999999999999999999: use an id shown on /runs/"),
    ('"x1"', WHOLE + '"x1"'),
    # "1" was taken for run 1 while a concurrency of "4" was refused: every number of the API is a JSON number.
    ('"1"', WHOLE + '"1"'),
])
def test_an_annotations_run_that_is_no_id_says_so(token, given, error):
    """Run 1 exists: "no run 1.0" or "no run True" sent the script looking for a run that was there."""
    Run.objects.create(name="r", server=make_server(), started_at=datetime(2026, 1, 5, 12, tzinfo=UTC), pk=1)
    response = post("/api/annotations", None, token, raw=f'{{"text": "x", "run": {given}}}')
    assert (response.status_code, response.json()) == (400, {"error": error})
    assert not Annotation.objects.exists()


def test_an_annotation_names_its_run_by_id(token):
    run = Run.objects.create(name="r", server=make_server(), started_at=datetime(2026, 1, 5, 12, tzinfo=UTC))
    assert post("/api/annotations", {"text": "x", "run": run.pk}, token).json()["run"] == run.pk


def test_control_characters_are_refused_in_names_and_kept_out_of_texts_but_tabs_and_breaks(token):
    """Audit 4: "rw\\x1b[31m" as a run name or "\\x01" in an annotation went raw into runs.csv and annotations.csv,
    while NUL was refused. Names, sweeps and labels hold none; notes and annotation texts keep tabs and breaks."""
    make_server("lab3")
    for field in ("name", "sweep", "label"):
        response = post("/api/runs", {"name": "r", "server": "lab3", field: "rw\x1b[31m\x01"}, token)
        assert response.status_code == 400
        assert response.json()["error"] == (f"'{field}' cannot hold control characters (U+001B, U+0001): use "
                                             "letters, digits, spaces and punctuation")
    refused = post("/api/runs", {"name": "r", "server": "lab3", "notes": "a\tb\x7f"}, token)
    assert refused.json()["error"] == ("'notes' cannot hold control characters (U+007F): use letters, digits, "
                                       "spaces, punctuation, tabs and line breaks")
    tabbed = post("/api/runs", {"name": "r", "server": "lab3", "label": "é x", "notes": "a\tb\r\nc"}, token)
    assert tabbed.status_code == 201 and not Run.objects.exclude(notes="a\tb\r\nc").exists()
    note = post("/api/annotations", {"server": "lab3", "text": "flush\x01"}, token)
    assert note.status_code == 400 and note.json()["error"].startswith("'text' cannot hold control characters "
                                                                       "(U+0001)")
    assert post("/api/annotations", {"server": "lab3", "text": "flush\n2"}, token).status_code == 201
    assert list(Annotation.objects.values_list("text", flat=True)) == ["flush\n2"]
