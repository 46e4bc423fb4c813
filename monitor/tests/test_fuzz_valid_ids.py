"""No 500 behind valid ids: each route asked with a valid request, then one hostile value at a time.

The plain fuzz (test_fuzz_urls.py) sets every parameter hostile at once, so a view that refuses a bad
server= or run id first never reads the rest. Here each route's request names things that exist (a
server with polls, runs, a sweep, a digest, a rule, an event: testing/fuzz_targets.py); the parameters
it reads are recorded while it runs (testing/fuzz_reads.py), and each is then set, alone, to every
hostile value of testing/fuzz.py, repeated, and paired with its partner in a range reversed or empty.
"""

import gzip
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import date, timedelta
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from alerts.models import Event, Rule
from dashboards.models import ApiToken
from dashboards.reports import run_file
from servers.models import Annotation, Run
from store.statement_reads import totals
from testing.alerts import make_rule
from testing.dashboards import make_server, write_polls
from testing.fuzz import HUGE, JSON_HOSTILE, TARGETED, range_pairs
from testing.fuzz_reads import Reads
from testing.fuzz_targets import GONE, LEFT_OUT, Ask, World, asks, leaf_paths, replaced, route_names
from testing.scalability import BASELINE, write_sweep
from testing.statements import write_reads
from testing.store import reset_caches, truncate_tables

pytestmark = pytest.mark.django_db(transaction=True)  # a request's failed query must not abort the rest

# Every value of every parameter is a run of minutes (FUZZ_EVERY=1): by default one slice of each parameter's
# values, a slice a day in turn (FUZZ_SLICE=n picks one, to repeat what a failure said).
EVERY = os.environ.get("FUZZ_EVERY") == "1"
SLICES = 16
SLICE = int(os.environ.get("FUZZ_SLICE", date.today().toordinal() % SLICES))
# FUZZ_LOG=1 says each route's count and each failure as it is found; FUZZ_ONLY=a,b asks only the routes named *a*, *b*.
LOG, ONLY = os.environ.get("FUZZ_LOG") == "1", os.environ.get("FUZZ_ONLY", "")
ANSWERS = {200, 201, 302, 400, 404, 405, 409, 413, 429}


@pytest.fixture
def world(admin_user, settings, tmp_path) -> Iterator[World]:
    reset_caches()
    settings.VAR_DIR = tmp_path  # the demo load's pause flag
    settings.EXPORT_PER_USER = settings.EXPORT_PER_PROCESS = 1_000_000  # streams are read in part
    server = make_server("fuzz-db", tags=["lab", "demo"])
    start = write_polls(server, 60)
    end = start + timedelta(seconds=590)
    write_reads(server.pk, start, 5)
    runs = [Run.objects.create(name=f"r{i}", server=server, started_at=start + timedelta(minutes=i),
                               ended_at=start + timedelta(minutes=i + 4), label=label, concurrency=4)
            for i, label in ((0, "A"), (5, "B"))]
    write_sweep(server, "sweep", "lbl", start - timedelta(hours=3), BASELINE)
    rule = make_rule(server=server)
    now = timezone.now()
    event = Event.objects.create(rule=rule, server=server, since=now, opened_at=now, value=1)
    digest = next(r.digest_id for r in totals(server.pk, start, end + timedelta(minutes=2)))
    yield World(server, runs, "sweep", digest, rule, event, start, end)
    truncate_tables()  # the test commits: the store's partitioned tables outlive the flush
    reset_caches()


class Asker:
    """Sends requests and keeps what went wrong: a 500, an answer outside ANSWERS, a 4xx without a word."""

    def __init__(self, client: Client, token: str, reads: Reads):
        self.client, self.token, self.reads = client, token, reads
        self.failures: list[str] = []
        self.count = 0

    def send(self, ask: Ask, query: dict, body: dict | None, note: str = "") -> tuple[int | None, set, set]:
        self.count += 1
        said = f"{ask.path} {query!r:.200} {note or repr(body):.200}"
        try:
            if ask.api is not None:
                response = self.client.post(ask.path + "?" + urlencode(query, doseq=True), json.dumps(body),
                                            content_type="application/json",
                                            HTTP_AUTHORIZATION=f"Bearer {self.token}")
            elif body is not None:
                response = self.client.post(ask.path + "?" + urlencode(query, doseq=True), body)
            else:
                response = self.client.get(ask.path, query)
            content = read_some(response)
        except Exception as exc:  # the test client re-raises what the view raised: a 500 in production
            self.fail(f"{said}: {type(exc).__name__}: {exc}"[:600])
            return None, set(), set()
        got, posted = self.reads.take(response.wsgi_request)
        if response.status_code not in ANSWERS:
            self.fail(f"{said}: HTTP {response.status_code}")
        elif 400 <= response.status_code < 500 and not content.strip():
            self.fail(f"{said}: HTTP {response.status_code} says nothing")
        return response.status_code, got, posted

    def fail(self, said: str) -> None:
        self.failures.append(said)
        if LOG:
            print("FAILURE", said, file=sys.stderr, flush=True)


def read_some(response) -> bytes:
    """A stream's first chunks (where an error would surface), or the whole body."""
    if not response.streaming:
        response.close()
        return response.content
    chunks = []
    for i, chunk in enumerate(response.streaming_content):
        chunks.append(chunk)
        if i > 50:
            break
    response.close()
    return b"".join(chunks)


def variants(ask: Ask, read: set[str], body_read: set[str]) -> list[tuple[dict, dict | None]]:
    """(query, body) with one parameter hostile, for each parameter the valid request read."""
    body = ask.api if ask.api is not None else ask.form
    out = []
    for k, name in enumerate(sorted(read)):
        values: list = [*TARGETED, [ask.query.get(name, "1"), "x"], ["x", ask.query.get(name, "1")]]
        out += [({**ask.query, name: v}, body) for v in share(values, k)]
    out += [({**ask.query, **pair}, body) for pair in share(range_pairs(ask.query, read), 0)]
    if body is None:
        return out
    keys = set(ask.api) | API_FIELDS if ask.api is not None else body_read
    for k, name in enumerate(sorted(keys)):
        values = [*TARGETED, *JSON_HOSTILE] if ask.api is not None else [*TARGETED, [body.get(name, "1"), "x"]]
        out += [(ask.query, {**body, name: v}) for v in share(values, k)]
    out += [(ask.query, {**body, **pair}) for pair in share(range_pairs(body, keys), 1)]
    return out


API_FIELDS = {"name", "server", "notes", "sweep", "label", "command", "tool_summary", "text", "run", "at",
              "started_at", "ended_at", "concurrency", "warmup_seconds"}


def share(values: list, k: int) -> list:
    """The values of the k-th parameter this run sends: every value, or one slice (turning with k)."""
    step = min(SLICES, len(values)) or 1  # a list shorter than the slices gives one value each run
    return values if EVERY else values[(SLICE + k) % step::step]


def test_no_parameter_behind_valid_ids_answers_500(world, admin_user):
    _, token = ApiToken.issue(admin_user, "fuzz")
    client = Client(raise_request_exception=True)
    client.force_login(admin_user)
    reads = Reads()
    asker = Asker(client, token, reads)
    made = Made()
    with reads.recording():
        for ask in asks(world):
            if ONLY and not any(o in ask.name for o in ONLY.split(",")):
                continue
            body = ask.api if ask.api is not None else ask.form
            status, read, body_read = asker.send(ask, ask.query, body)
            assert status in ask.ok, f"the valid request {ask} answered {status}: the fuzz would not reach its reads"
            began, before = time.monotonic(), asker.count
            for query, hostile_body in variants(ask, read - {"csrfmiddlewaretoken"}, body_read):
                asker.send(ask, query, hostile_body)
                made.clear()  # what a valid variant added: the runs page would list and sum every run made
            if LOG:
                print(f"{ask.name} {sorted(read)} {sorted(body_read)}: {asker.count - before} requests in "
                      f"{time.monotonic() - began:.1f} s, {len(asker.failures)} failures", file=sys.stderr, flush=True)
    print(f"fuzz behind valid ids: {asker.count} requests")
    assert asker.failures == [], f"FUZZ_SLICE={SLICE}:\n" + "\n".join(asker.failures[:60])


class Made:
    """The runs, annotations and rules the fuzz's requests add, beyond the world's."""

    MODELS: tuple[type[Run] | type[Annotation] | type[Rule], ...] = (Run, Annotation, Rule)

    def __init__(self):
        self.last = [m.objects.order_by("-pk").values_list("pk", flat=True).first() or 0 for m in self.MODELS]

    def clear(self) -> None:
        for model, last in zip(self.MODELS, self.last, strict=True):
            model.objects.filter(pk__gt=last).delete()


# What a run file's values become: every JSON type, and times and text past what a field holds.
FILE_VALUES = [*JSON_HOSTILE, GONE, "", "\x00", "x" * 5000, "-1", HUGE, "nan", "0001-01-01T00:00:00+01:00",
               "2100-06-01T00:00:00+00:00", "1969-12-31T23:59:59+00:00", "2026-01-05T12:00:00"]


def test_no_value_of_an_imported_run_file_answers_500(world, admin_user):
    """The run file of a run (its report's download), imported with one value changed at a time."""
    client = Client(raise_request_exception=True)
    client.force_login(admin_user)
    asker = Asker(client, "", Reads())
    document = json.loads(gzip.decompress(run_file.export([world.runs[0]])))
    part = document["servers"][0]
    part["samples"], part["statements"]["reads"] = part["samples"][:3], part["statements"]["reads"][:1]
    ask = Ask("servers:import_run", ok=(302,))

    def upload(doc, name: str = "") -> dict:
        data = gzip.compress(json.dumps(doc).encode())  # NaN and Infinity as Python's json reads them
        return {"name": name, "file": SimpleUploadedFile("r.run.json.gz", data)}

    status, *_ = asker.send(ask, {}, upload(document))
    assert status == 302, "the run file as exported must import: the fuzz would not reach its values"
    for k, path in enumerate(leaf_paths(document)):
        for value in share(FILE_VALUES, k):
            asker.send(ask, {}, upload(replaced(document, path, value)), f"{path}={value!r:.60}")
    for name in share(TARGETED, 0):
        asker.send(ask, {}, upload(document, name), f"name={name!r:.60}")
    print(f"run file fuzz: {asker.count} imports")
    assert asker.failures == [], f"FUZZ_SLICE={SLICE}:\n" + "\n".join(asker.failures[:60])


def test_it_reaches_the_parameters_behind_a_valid_server(world, admin_user):
    """The waits page reads top= and from2= only for a server that exists: recorded, so they are fuzzed."""
    client = Client()
    client.force_login(admin_user)
    reads = Reads()
    with reads.recording():
        response = client.get(f"/servers/{world.server.pk}/waits/", {"top": "5"})
    assert response.status_code == 200
    got, _ = reads.take(response.wsgi_request)
    assert {"top", "from2", "to2", "from", "to", "range", "cond", "client"} <= got


def test_every_route_has_a_valid_request_or_a_reason_to_have_none(world):
    """A new page is fuzzed behind valid ids once testing/fuzz_targets.py names a valid request of it."""
    asked = {ask.name for ask in asks(world)} | {"servers:import_run"}  # a run file: its own test above
    assert route_names() - asked == LEFT_OUT
