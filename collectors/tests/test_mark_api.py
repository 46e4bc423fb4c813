"""The collector's local API refuses, as the server's API does (docs/api.md), what the load could not keep."""

import http.client
import io
import json
import socket

import pytest

from collectors.collect_marks import marks_path
from collectors.collect_runs import MarkSeen, runs_of
from collectors.mark_api import ApiError, MarkApi, serve

UNSTORABLE = "text without NUL characters (\\u0000) or lone surrogates (\\ud800)"


@pytest.fixture
def api(tmp_path):
    return MarkApi(tmp_path / "lab.ssc")


def marks(api: MarkApi) -> list[dict]:
    path = marks_path(api.path)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize(("url", "body", "error"), [
    # Run.started_at and Annotation.at keep 1970-2100: the load refused the whole file (or failed, a 500)
    ("/api/runs", {"name": "r", "started_at": "9999-12-31T23:59:59"},
     "started_at: '9999-12-31T23:59:59' is not a time between 1970-01-01 and 2100-01-01 (UTC)"),
    ("/api/annotations", {"text": "t", "at": "1960-01-01T00:00:00Z"},
     "at: '1960-01-01T00:00:00Z' is not a time between 1970-01-01 and 2100-01-01 (UTC)"),
    # the load dropped these silently: the run had no concurrency on the Scalability page
    ("/api/runs", {"name": "r", "concurrency": 0}, "concurrency: a whole number from 1 to 2147483647"),
    ("/api/runs", {"name": "r", "concurrency": 10**30}, "concurrency: a whole number from 1 to 2147483647"),
    ("/api/runs", {"name": "r", "warmup_seconds": 2**31}, "warmup_seconds: a whole number from 0 to 2147483647"),
    # not JSON numbers: refused in the server's API's words (dashboards/tests/test_api.py)
    ("/api/runs", {"name": "r", "concurrency": "4"}, "'concurrency' must be a whole number (a JSON number such as 4,"
                                                     " not a string or true/false), got \"4\""),
    ("/api/runs", {"name": "r", "warmup_seconds": True}, "'warmup_seconds' must be a whole number (a JSON number"
                                                         " such as 4, not a string or true/false), got true"),
    # PostgreSQL holds neither: the load refused the whole file as damaged
    ("/api/runs", {"name": "r\x00"}, f"name: {UNSTORABLE}"),
    ("/api/annotations", {"text": "a \ud800"}, f"text: {UNSTORABLE}"),
    # went raw into runs.csv and annotations.csv once loaded: refused in the server's API's words
    ("/api/runs", {"name": "r\x1b[0m"}, "'name' cannot hold control characters (U+001B): use letters, digits, "
                                        "spaces and punctuation"),
    ("/api/runs", {"name": "r", "sweep": "s\x01"}, "'sweep' cannot hold control characters (U+0001): use letters, "
                                                   "digits, spaces and punctuation"),
    ("/api/annotations", {"text": "a\tb\x01"}, "'text' cannot hold control characters (U+0001): use letters, "
                                               "digits, spaces, punctuation, tabs and line breaks"),
    # was stored as a run ending where it started
    ("/api/runs", {"name": "r", "started_at": "2026-01-05T12:00:00Z", "ended_at": "2026-01-05T11:00:00Z"},
     "ended_at: before started_at"),
])
def test_it_refuses_what_the_load_could_not_keep_and_marks_nothing(api, url, body, error):
    with pytest.raises(ApiError) as refused:
        api.post(url, body)
    assert (refused.value.status, str(refused.value)) == (400, error)
    assert marks(api) == []


def test_an_end_before_the_runs_start_is_refused_and_a_good_one_marked(api):
    assert api.post("/api/runs", {"name": "rw", "started_at": "2026-01-05T12:00:00Z", "concurrency": 8})[0] == 201
    with pytest.raises(ApiError, match="ended_at: before the run's start"):
        api.post("/api/runs/1/end", {"ended_at": "2026-01-05T11:59:59Z"})
    assert api.post("/api/runs/1/end", {"ended_at": "2026-01-05T12:10:00Z"})[0] == 200
    # 2026-01-05T12:00:00Z is 1767614400 s after the epoch
    assert [(m["at"], m.get("run_start"), m.get("run_end")) for m in marks(api)] == [
        (1767614400.0, "rw", None), (1767615000.0, None, "rw")]


@pytest.mark.parametrize("ended_first", [
    {"ended_at": "2026-01-05T12:10:00Z"},  # by /end
    None,  # by the start's own ended_at
])
def test_an_ended_run_keeps_its_end_when_end_is_called_again_without_one(api, ended_first):
    start = {"name": "rw", "started_at": "2026-01-05T12:00:00Z"}
    api.post("/api/runs", start if ended_first else {**start, "ended_at": "2026-01-05T12:10:00Z"})
    if ended_first:
        api.post("/api/runs/1/end", ended_first)
    status, answer = api.post("/api/runs/1/end", {"tool_summary": "transactions: 600 (1.00 per sec.)"})
    assert (status, answer["ended_at"]) == (200, "2026-01-05T12:10:00+00:00")
    # 2026-01-05T12:10:00Z is 1767614400 + 600 s: every end mark there, the last (which the load keeps) too
    ends = [m for m in marks(api) if m.get("run_end")]
    assert [m["at"] for m in ends] == [1767615000.0, 1767615000.0]
    assert ends[-1]["fields"] == {"tool_summary": "transactions: 600 (1.00 per sec.)"}
    runs = runs_of([MarkSeen(m, None, 0) for m in marks(api)])
    assert [(r.name, r.end, r.fields) for r in runs] == [
        ("rw", 1767615000.0, {"tool_summary": "transactions: 600 (1.00 per sec.)"})]


@pytest.fixture
def served(tmp_path):
    server = serve(tmp_path / "lab.ssc", 0, body_seconds=0.5)  # port 0: one the system picks
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def post_raw(port: int, length: str, data: bytes) -> tuple[int, dict]:
    """A POST with the Content-Length given as is (http.client would write the true one)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("POST", "/api/annotations")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", length)
    conn.endheaders(data)
    response = conn.getresponse()
    answer = response.status, json.loads(response.read())
    conn.close()
    return answer


@pytest.mark.parametrize(("length", "data", "error"), [
    # read to the end of a stream the client keeps open: the client waited forever
    ("-1", b'{"text": "t"}', "Content-Length: '-1' is not the body's length in bytes (a whole number)"),
    ("ten", b'{"text": "t"}', "Content-Length: 'ten' is not the body's length in bytes (a whole number)"),
    # a RecursionError, not a ValueError: the connection was dropped with no answer
    ("60000", b"[" * 30_000 + b"]" * 30_000, "the body is nested too deeply: send a flat JSON object"),
])
def test_a_bad_length_or_a_deep_body_is_a_400_and_the_api_goes_on(served, length, data, error):
    assert post_raw(served, length, data) == (400, {"error": error})
    status, answer = post_raw(served, "13", b'{"text": "t"}')
    assert status == 201 and answer["text"] == "t"


@pytest.mark.parametrize("close_writing", [False, True])
def test_a_body_shorter_than_its_length_is_a_400_not_a_wait_forever(served, close_writing):
    """100 bytes announced, 13 sent: the client keeps the connection open (it waited forever) or stops writing."""
    with socket.create_connection(("127.0.0.1", served), timeout=10) as sock:
        sock.sendall(b"POST /api/annotations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n" + b'{"text": "t"}')
        if close_writing:
            sock.shutdown(socket.SHUT_WR)
        reply = sock.makefile("rb").read()
    head, _, data = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 400")
    assert json.loads(data) == {"error": "the body ended before its Content-Length (100 bytes): send the whole body"}
    status, answer = post_raw(served, "13", b'{"text": "t"}')
    assert status == 201 and answer["text"] == "t"


def test_collect_and_collect_mark_refuse_control_characters_before_marking(tmp_path):
    """Audit 4: `collect --run $'r\\x1b[1m'` and `collect_mark --start-run` wrote the name raw into the marks,
    then into runs.csv once loaded, where the API refuses it; an annotation keeps a tab and a line break."""
    from django.core.management import CommandError, call_command

    path = tmp_path / "lab.ssc"
    with pytest.raises(CommandError) as refused:
        call_command("collect_mark", str(path), "--start-run", "r\x1b[1m")
    assert str(refused.value) == ("'name' cannot hold control characters (U+001B): use letters, digits, spaces "
                                  "and punctuation")
    with pytest.raises(CommandError) as refused:
        call_command("collect_mark", str(path), "--annotate", "flush\t1\x01")
    assert str(refused.value).startswith("'text' cannot hold control characters (U+0001)")
    assert not marks_path(path).exists()
    call_command("collect_mark", str(path), "--annotate", "flush\t1\nthen 2", stdout=io.StringIO())
    assert [m["annotate"] for m in json_lines(marks_path(path))] == ["flush\t1\nthen 2"]
    # no server listens on port 1: refused before connecting, or it would say it cannot connect
    with pytest.raises(CommandError, match=r"^--run or --annotate: 'name' cannot hold control characters \(U\+0007\)"):
        call_command("collect", "mysql://steady@127.0.0.1:1", "--to", str(tmp_path / "c.ssc"), "--run", "r\a")


def json_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]
