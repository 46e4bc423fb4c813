"""No URL of the project answers 500, whatever its parameters: a bounded fuzz as a logged-in admin.

Every route of the URL confs (the admin's included) is asked with its path parameters filled with
existing ids, 0 and a huge number, then, round after round until the time is up, with every query and
form parameter the code reads or the pages send set to a hostile value (NUL, numbers past every type,
times outside every range, markup, a long text); the API gets hostile JSON bodies with a token.
"""

import re
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from alerts.models import Event, Notification
from dashboards.models import ApiToken
from servers.models import Annotation, Run
from testing.alerts import make_rule
from testing.dashboards import make_server, write_polls
from testing.fuzz import HOSTILE, HUGE, fill, json_bodies, parameter_names, routes

pytestmark = pytest.mark.django_db(transaction=True)  # a request's failed query must not abort the rest

SECONDS = 20  # the hostile rounds stop when this is spent (the plain pass over every URL always runs)
FIELD = re.compile(r"""name="([A-Za-z_][\w-]*)\"""")


@pytest.fixture
def world(admin_user) -> dict:
    """One of each thing a URL can name, with data to draw."""
    server = make_server("fuzz-db", tags=["lab"])
    start = write_polls(server, 60)
    run = Run.objects.create(name="r", server=server, started_at=start, ended_at=start + timedelta(minutes=5),
                             sweep="s", concurrency=4)
    note = Annotation.objects.create(server=server, run=run, at=start, text="n")
    rule = make_rule(server=server)
    now = timezone.now()
    event = Event.objects.create(rule=rule, server=server, since=now, opened_at=now, value=1)
    notification = Notification.objects.create(kind=Notification.TEST, recipients=["a@example.com"],
                                               created_at=now, next_attempt_at=now)
    token, raw = ApiToken.issue(admin_user, "fuzz")
    ids = {o.pk for o in (server, run, note, rule, event, notification, token, admin_user)}
    return {"ids": [str(i) for i in sorted(ids)], "token": raw}


def consume(response) -> None:
    """Read a stream far enough to run its generator (where an error would surface), then close it."""
    if response.streaming:
        for i, _ in enumerate(response.streaming_content):
            if i > 50:
                break
    response.close()


class Fuzzer:
    def __init__(self, client: Client):
        self.client, self.requests = client, 0
        self.failures: list[str] = []
        self.fields: set[str] = set()  # form fields the pages render

    def ask(self, method: str, path: str, data=None, **extra) -> None:
        self.requests += 1
        try:
            response = getattr(self.client, method)(path, data, **extra)
            consume(response)
        except Exception as exc:  # the test client re-raises what the view raised: a 500 in production
            self.failures.append(f"{method.upper()} {path} {str(data)[:120]!r}: {type(exc).__name__}: {exc}"[:400])
            return
        if response.status_code >= 500:
            self.failures.append(f"{method.upper()} {path} {str(data)[:120]!r}: HTTP {response.status_code}")
        elif not response.streaming and "html" in response.get("Content-Type", ""):
            self.fields.update(FIELD.findall(response.content.decode(errors="replace")))


def test_no_url_answers_500_to_hostile_parameters(world, admin_user, settings_export_bounds_off):
    client = Client(raise_request_exception=True)
    client.force_login(admin_user)
    fuzz = Fuzzer(client)
    texts = [*world["ids"], "x", "%00", HUGE]
    paths = [path for route, _ in routes() for path in fill(route, [*world["ids"], "0", HUGE], texts)]
    assert len(paths) > 200
    for path in paths:
        fuzz.ask("get", path)
    names = sorted(set(parameter_names(settings.BASE_DIR)) | fuzz.fields - {"csrfmiddlewaretoken"})
    deadline = time.monotonic() + SECONDS
    api = [p for p in paths if p.startswith("/api/")]
    # One path per route (existing ids) from here on, never a logout (the session must last); deleting
    # last keeps the ids alive for the rest.
    hostile = sorted({fill(route, world["ids"], world["ids"])[0] for route, _ in routes() if "logout" not in route},
                     key=lambda p: "delete" in p)
    rounds = 0
    while time.monotonic() < deadline and rounds < len(HOSTILE):
        for i, path in enumerate(hostile):
            if time.monotonic() > deadline:
                break
            same = HOSTILE[(rounds + i) % len(HOSTILE)]  # every parameter alike, then each its own
            fuzz.ask("get", path, {name: same for name in names})
            fuzz.ask("post", path, {name: HOSTILE[(rounds + i + j) % len(HOSTILE)] for j, name in enumerate(names)})
        for i, body in enumerate(json_bodies()):
            fuzz.ask("post", api[(rounds + i) % len(api)], body, content_type="application/json",
                     HTTP_AUTHORIZATION=f"Bearer {world['token']}")
        rounds += 1
    print(f"fuzz: {len(paths)} paths, {len(names)} parameter names, {rounds} hostile rounds over {len(hostile)}, "
          f"{fuzz.requests} requests")
    assert rounds >= 1
    assert fuzz.failures == [], "\n".join(fuzz.failures[:40])


@pytest.fixture
def settings_export_bounds_off(settings):
    """The fuzz reads only the start of each download: slots would otherwise stay taken (429s, not 500s)."""
    settings.EXPORT_PER_USER = settings.EXPORT_PER_PROCESS = 1_000_000


def test_it_fuzzes_the_parameters_handed_to_a_parser_by_name():
    """waits= (int_param) and the CSV flags (_flag) are read through a parser, not GET.get("x")."""
    assert {"waits", "bom", "full", "minmax", "seconds"} <= set(parameter_names(settings.BASE_DIR))
