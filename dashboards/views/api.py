"""JSON API for scripts: mark runs and annotations (token auth, see docs/api.md)."""

import json
from datetime import UTC, datetime
from functools import wraps
from typing import overload

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from collectors.collect_runs import whole_number_problem
from dashboards.bearer import accepts_token
from dashboards.query_params import MAX_THREADS, MAX_WARMUP
from dashboards.storable import first_unstorable, why_unstorable
from dashboards.url_ids import MAX_DIGITS
from servers.models import Annotation, Run, Server
from servers.names import api_text_problem
from servers.time_bounds import BOUNDS, out_of_bounds


class BadRequest(ValueError):
    """A client error, reported as 400 with its message."""


def token_required(view):
    """Bearer-token auth instead of the session: scripts have no cookies and no CSRF token."""

    @accepts_token  # dashboards.bearer authenticates it; monitor.roles checks its owner's role
    @login_not_required
    @csrf_exempt
    @require_POST
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        if getattr(request, "api_token", None) is None:
            return JsonResponse({"error": "missing or invalid token: send 'Authorization: Bearer <token>' "
                                 "with a token made on /tokens/"}, status=401)
        try:
            return view(request, json_body(request), *args, **kwargs)
        except BadRequest as exc:
            return JsonResponse({"error": str(exc)}, status=400)

    return wrapper


def json_body(request: HttpRequest) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except RequestDataTooBig:
        raise BadRequest(f"the body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes "
                         "(DATA_UPLOAD_MAX_MEMORY_SIZE): send a shorter notes or tool_summary") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from exc
    except RecursionError:
        raise BadRequest("the body is nested too deeply: send a flat JSON object") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    for key, value in body.items():
        if why_unstorable(key):
            raise BadRequest(f"the key {ascii(key)} {why_unstorable(key)}")
        if first_unstorable(value):
            raise BadRequest(f"'{key}' {first_unstorable(value)}")
    return body


@overload
def when(body: dict, key: str, default: datetime) -> datetime: ...
@overload
def when(body: dict, key: str, default: None = None) -> datetime | None: ...
def when(body: dict, key: str, default: datetime | None = None) -> datetime | None:
    """An ISO 8601 time within servers.time_bounds; naive times are taken as UTC."""
    raw = body.get(key)
    if raw in (None, ""):
        return default
    try:
        parsed = parse_datetime(str(raw)) if isinstance(raw, str) else None
    except ValueError:  # well formed, but no such day or hour (2026-02-30)
        parsed = None
    if parsed is None:
        raise BadRequest(f"'{key}' must be an ISO 8601 time like 2026-01-05T12:00:00Z, got {raw!r}")
    if out_of_bounds(parsed):
        raise BadRequest(f"'{key}' must be a time {BOUNDS}, got {raw!r}")
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)


def shown(value) -> str:
    """A JSON value as the script sent it, cut short for an error message."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def find_server(body: dict, required: bool) -> Server | None:
    """By id or by name: scripts know the name they gave the server."""
    ref = body.get("server")
    if ref is None or (ref == "" and required):
        if required:
            raise BadRequest("'server' (id or name) is required")
        return None
    if ref == "":  # once read as "no server": a fleet-wide annotation where the script meant one server
        raise BadRequest("'server' is empty: leave it out (or send null) to annotate every server's charts, "
                         "or give a server's id or name")
    if isinstance(ref, bool) or not isinstance(ref, int | str):  # JSON true is no server 1
        raise BadRequest(f"'server' must be an id (a whole number) or a name (a string), got {shown(ref)}")
    lookup = {"pk": ref} if isinstance(ref, int) else {"name": ref}
    server = Server.objects.filter(**lookup).first()
    if server is None:
        raise BadRequest(f"no server {ref!r}: use the id or the exact name shown on /servers/")
    return server


def find_run(body: dict) -> Run | None:
    """By id, a JSON whole number as every number of both APIs (concurrency, warmup_seconds): "1" was taken for
    run 1 while "4" was refused as a concurrency. 1.0, true or [1] named "no run 1.0" while run 1 existed."""
    ref = body.get("run")
    if ref in (None, ""):
        return None
    if problem := whole_number_problem("run", ref):
        raise BadRequest(problem)
    run = Run.objects.filter(pk=ref).first() if 0 < ref < 10**MAX_DIGITS else None  # a JSON int is any size
    if run is None:
        raise BadRequest(f"no run {ref!r}: use an id shown on /runs/")
    return run


def text(body: dict, key: str, limit: int, required: bool = True) -> str:
    raw = body.get(key)
    if raw is not None and not isinstance(raw, str):  # a list or object would be kept as Python's repr of it
        raise BadRequest(f"'{key}' must be a string, got {shown(raw)}")
    value = (raw or "").strip()
    if required and not value:
        raise BadRequest(f"'{key}' is required")
    if len(value) > limit:
        raise BadRequest(f"'{key}' is longer than {limit} characters")
    if problem := api_text_problem(key, value):
        raise BadRequest(problem)
    return value


def count(body: dict, key: str, limit: int, minimum: int = 0) -> int | None:
    """A whole number in [minimum, limit], or None when left out."""
    raw = body.get(key)
    if raw in (None, ""):
        return None
    if problem := whole_number_problem(key, raw):
        raise BadRequest(problem)
    number = raw
    if not minimum <= number <= limit:
        raise BadRequest(f"'{key}' must be between {minimum} and {limit}, got {raw}")
    return number


# Scalability fields: a step of a sweep and what differed in its configuration.
STUDY_TEXTS = {"sweep": 200, "label": 200, "command": 10_000, "tool_summary": 100_000}


def study_fields(body: dict) -> dict:
    fields: dict[str, str | int | None] = {key: text(body, key, limit, required=False)
                                           for key, limit in STUDY_TEXTS.items()}
    fields["concurrency"] = count(body, "concurrency", MAX_THREADS, minimum=1)
    fields["warmup_seconds"] = count(body, "warmup_seconds", MAX_WARMUP) or 0
    return fields


def run_json(run: Run) -> dict:
    return {"id": run.pk, "name": run.name, "server": run.server_id,
            "started_at": run.started_at.isoformat(),
            "ended_at": run.ended_at.isoformat() if run.ended_at else None, "notes": run.notes,
            "concurrency": run.concurrency, "warmup_seconds": run.warmup_seconds, "sweep": run.sweep,
            "label": run.label, "command": run.command, "tool_summary": run.tool_summary}


@token_required
def create_annotation(request: HttpRequest, body: dict) -> JsonResponse:
    run = find_run(body)
    server = find_server(body, required=False)
    if run and server and server != run.server:  # it would be drawn on one server's charts, under another's run
        raise BadRequest(f"run {run.pk} is on server {run.server.name!r}, not {server.name!r}: "
                         "leave 'server' out to annotate the run on its own server")
    server = server or (run.server if run else None)
    note = Annotation.objects.create(
        server=server, run=run, at=when(body, "at", timezone.now()), text=text(body, "text", 500)
    )
    return JsonResponse({"id": note.pk, "server": note.server_id, "run": note.run_id,
                         "at": note.at.isoformat(), "text": note.text}, status=201)


@token_required
def create_run(request: HttpRequest, body: dict) -> JsonResponse:
    started = when(body, "started_at", timezone.now())
    ended = when(body, "ended_at")
    if ended and ended < started:
        raise BadRequest("'ended_at' is before 'started_at'")
    run = Run.objects.create(
        name=text(body, "name", 200), server=find_server(body, required=True),
        started_at=started, ended_at=ended, notes=text(body, "notes", 10000, required=False),
        **study_fields(body),
    )
    return JsonResponse(run_json(run), status=201)


@token_required
def end_run(request: HttpRequest, body: dict, run_id: int) -> JsonResponse:
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        return JsonResponse({"error": f"no run {run_id}"}, status=404)
    # No ended_at: now, or the end it has (a summary sent after the end must not stretch the run to now).
    ended = when(body, "ended_at", run.ended_at or timezone.now())
    if ended < run.started_at:
        raise BadRequest("'ended_at' is before the run's start")
    run.ended_at = ended
    run.tool_summary = text(body, "tool_summary", STUDY_TEXTS["tool_summary"], required=False) or run.tool_summary
    run.save(update_fields=["ended_at", "tool_summary"])
    return JsonResponse(run_json(run))
