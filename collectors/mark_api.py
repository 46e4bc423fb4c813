"""The runs and annotations API of docs/api.md, served by a running collection on 127.0.0.1 (`collect --api PORT`).

A benchmark script that marks its runs on SteadyState through the API marks them the same way
where SteadyState cannot be reached: point its base URL at the collector. The calls become marks
of the collection (collectors.collect_marks), stored with it by `load`. Only this host can reach
it, so the Authorization header is accepted as sent; `server` is ignored (a collection has one).
"""

import json
import re
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from collectors.collect_marks import append, mark_record
from collectors.collect_runs import MOST, RUN_NUMBERS, whole_number_problem
from servers.names import api_text_problem
from servers.time_bounds import BOUNDS, out_of_bounds

RUN_FIELDS = {"notes": str, "concurrency": int, "warmup_seconds": int, "sweep": str, "label": str,
              "command": str, "tool_summary": str}
END = re.compile(r"^/api/runs/(\d+)/end/?$")
MAX_BODY = 64 * 1024
# A client that sends less than its Content-Length and keeps the connection open is answered after this long.
BODY_SECONDS = 10.0
DIGITS = re.compile(r"[0-9]+")


class ApiError(ValueError):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class MarkApi:
    """What the API was told in this collection: its runs by id, in the marks file of the collection."""

    def __init__(self, path: Path):
        self.path = path
        self.runs: dict[int, str] = {}
        self.starts: dict[int, float] = {}  # epoch seconds, by run id
        self.ends: dict[int, float] = {}  # epoch seconds, by run id, of the runs ended
        self.lock = threading.Lock()

    def post(self, url: str, body: dict) -> tuple[int, dict]:
        if url.rstrip("/") == "/api/runs":
            return 201, self.start_run(body)
        if url.rstrip("/") == "/api/annotations":
            return 201, self.annotate(body)
        ended = END.match(url)
        if ended:
            return 200, self.end_run(int(ended.group(1)), body)
        raise ApiError(404, f"{url}: this collector serves POST /api/runs, /api/runs/<id>/end, /api/annotations")

    def start_run(self, body: dict) -> dict:
        name = text(body, "name", 200, required=True)
        started = when(body, "started_at")
        ended = when(body, "ended_at") if body.get("ended_at") else None
        if ended is not None and ended < started:
            raise ApiError(400, "ended_at: before started_at")
        fields = run_fields(body)
        with self.lock:
            run_id = len(self.runs) + 1
            self.runs[run_id] = name
            self.starts[run_id] = started
            if ended is not None:
                self.ends[run_id] = ended
        append(self.path, {**mark_record(started, run_start=name), "fields": fields})
        if ended is not None:
            append(self.path, mark_record(ended, run_end=name))
        return {"id": run_id, "name": name, "started_at": stamp(started), **fields}

    def end_run(self, run_id: int, body: dict) -> dict:
        with self.lock:
            name, started, had = self.runs.get(run_id), self.starts.get(run_id, 0.0), self.ends.get(run_id)
        if name is None:
            raise ApiError(404, f"no run {run_id} in this collection")
        # No ended_at: now, or the end it has (the load keeps a run's last end mark: a summary sent after the
        # end must not stretch the run to now), as the server's API does.
        ended = when(body, "ended_at", had)
        if ended < started:
            raise ApiError(400, "ended_at: before the run's start")
        entry = mark_record(ended, run_end=name)
        if body.get("tool_summary"):
            entry["fields"] = {"tool_summary": text(body, "tool_summary", 100_000)}
        append(self.path, entry)
        with self.lock:
            self.ends[run_id] = ended
        return {"id": run_id, "name": name, "ended_at": stamp(entry["at"])}

    def annotate(self, body: dict) -> dict:
        entry = append(self.path, mark_record(when(body, "at"), annotate=text(body, "text", 500, required=True)))
        return {"at": stamp(entry["at"]), "text": entry["annotate"]}


def text(body: dict, key: str, limit: int, required: bool = False) -> str:
    value = body.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()) or len(value) > limit:
        raise ApiError(400, f"{key}: {'required, ' if required else ''}text of at most {limit} characters")
    if unstorable(value):  # what PostgreSQL cannot hold would make the whole collection file fail to load
        raise ApiError(400, f"{key}: text without NUL characters (\\u0000) or lone surrogates (\\ud800)")
    if problem := api_text_problem(key, value.strip()):
        raise ApiError(400, problem)
    return value.strip()


def unstorable(value: str) -> bool:
    """A NUL or a lone UTF-16 surrogate (JSON's \\u0000, \\ud800): no PostgreSQL text column holds either."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return "\x00" in value


def when(body: dict, key: str, default: float | None = None) -> float:
    """An ISO 8601 time of the body (no offset: UTC) as epoch seconds; when absent, default or else now."""
    value = body.get(key)
    if not value:
        return time.time() if default is None else default
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(400, f"{key}: {value!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    if out_of_bounds(parsed):  # a run or annotation outside them cannot be stored: the load would refuse the file
        raise ApiError(400, f"{key}: {value!r} is not a time {BOUNDS}")
    return parsed.timestamp()


def run_fields(body: dict) -> dict:
    out = {}
    for key, kind in RUN_FIELDS.items():
        if body.get(key) in (None, ""):
            continue
        value = body[key]
        least = RUN_NUMBERS.get(key, 0)  # what the load keeps: it drops any other number silently
        if kind is int and (problem := whole_number_problem(key, value)):
            raise ApiError(400, problem)
        if kind is int and not least <= value <= MOST:
            raise ApiError(400, f"{key}: a whole number from {least} to {MOST}")
        out[key] = value if kind is int else text(body, key, 100_000)
    return out


def stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def body_length(header: str | None) -> int:
    """Content-Length, checked before any read: a negative one read to the end of a stream that never ends."""
    raw = (header or "0").strip()
    if not DIGITS.fullmatch(raw):
        raise ApiError(400, f"Content-Length: {raw!r} is not the body's length in bytes (a whole number)")
    if int(raw) > MAX_BODY:
        raise ApiError(400, f"the body is larger than {MAX_BODY} bytes")
    return int(raw)


def read_body(rfile, length: int) -> bytes:
    """The body's Content-Length bytes; a body that ends short (or stalls past the socket's timeout) is a 400."""
    try:
        data = rfile.read(length)
    except TimeoutError:
        data = b""
    if len(data) < length:
        raise ApiError(400, f"the body ended before its Content-Length ({length} bytes): send the whole body")
    return data


def json_body(data: bytes) -> dict:
    try:
        body = json.loads(data or b"{}")
    except RecursionError:  # not a ValueError: it dropped the connection with no answer
        raise ApiError(400, "the body is nested too deeply: send a flat JSON object") from None
    except ValueError as exc:  # UnicodeDecodeError among them
        raise ApiError(400, f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body is not a JSON object")
    return body


def handler_for(api: MarkApi, body_seconds: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = body_seconds  # the connection's socket timeout (socketserver.StreamRequestHandler)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            try:
                body = json_body(read_body(self.rfile, body_length(self.headers.get("Content-Length"))))
                status, answer = api.post(self.path.partition("?")[0], body)
            except ValueError as exc:  # ApiError, or a value the checks let through that Python cannot read
                status, answer = getattr(exc, "status", 400), {"error": str(exc)}
            self.answer(status, answer)

        def do_GET(self) -> None:  # noqa: N802
            self.answer(405, {"error": "POST only"})

        def answer(self, status: int, answer: dict) -> None:
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args) -> None:  # noqa: A002 - the collector prints its own lines
            pass

    return Handler


def serve(path: Path, port: int, body_seconds: float = BODY_SECONDS) -> ThreadingHTTPServer:
    """The API on 127.0.0.1:port in a daemon thread (shutdown() when the collection ends)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(MarkApi(path), body_seconds))
    threading.Thread(target=server.serve_forever, name="collect-api", daemon=True).start()
    return server
