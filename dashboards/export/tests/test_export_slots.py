"""Concurrent CSV exports are bounded per user and per web process, and the pages answer meanwhile."""

import http.client
import time
from urllib.parse import urlsplit

import pytest
from django.test import Client

from testing.slow_stream import HeldRows

PER_USER, PER_PROCESS = 2, 4  # the documented defaults of EXPORT_PER_USER and EXPORT_PER_PROCESS


@pytest.fixture
def held(monkeypatch, settings):
    settings.EXPORT_PER_USER, settings.EXPORT_PER_PROCESS = PER_USER, PER_PROCESS
    monkeypatch.setattr("dashboards.export.slots._streaming", 0)  # downloads other tests left unread
    rows = HeldRows()
    monkeypatch.setattr("dashboards.export.views.table_rows", rows)  # /export/runs.csv's rows
    yield rows
    rows.release.set()


def session(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def open_get(live_server, path: str, cookie: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(urlsplit(live_server.url).netloc, timeout=10)
    conn.request("GET", path, headers={"Cookie": f"sessionid={cookie}"} if cookie else {})
    return conn.getresponse()


def start_export(live_server, cookie: str, held: HeldRows) -> http.client.HTTPResponse:
    response = open_get(live_server, "/export/runs.csv", cookie)
    assert response.status == 200
    assert held.streaming.acquire(timeout=10)  # the view is inside its stream, holding its slot
    return response


def test_a_third_export_of_one_user_is_refused_and_the_pages_answer(live_server, django_user_model, held):
    viewer = django_user_model.objects.create_superuser("viewer", password="pw")
    cookie = session(viewer)
    streams = [start_export(live_server, cookie, held) for _ in range(PER_USER)]
    third = open_get(live_server, "/export/runs.csv", cookie)
    assert third.status == 429 and third.getheader("Retry-After") == "10"
    assert "already have 2 CSV exports streaming" in third.read().decode()
    started = time.monotonic()
    assert open_get(live_server, "/accounts/login/").status == 200
    assert open_get(live_server, "/runs/", cookie).status == 200
    assert time.monotonic() - started < 5
    held.release.set()
    for stream in streams:
        assert stream.read().decode().splitlines() == ["held", "done"]
    held.release.clear()
    again = start_export(live_server, cookie, held)  # both slots were given back
    held.release.set()
    again.read()


def test_each_web_process_streams_a_bounded_number_of_exports(live_server, django_user_model, held):
    users = [django_user_model.objects.create_superuser(f"u{i}", password="pw") for i in range(3)]
    cookies = [session(u) for u in users]
    streams = [start_export(live_server, c, held) for c in cookies[:2] for _ in range(PER_USER)]
    assert len(streams) == PER_PROCESS
    refused = open_get(live_server, "/export/runs.csv", cookies[2])
    assert refused.status == 429 and "EXPORT_PER_PROCESS" in refused.read().decode()
    assert open_get(live_server, "/accounts/login/").status == 200
    held.release.set()
    for stream in streams:
        stream.read()


def test_a_refused_or_failed_export_gives_its_slot_back(live_server, django_user_model, held):
    viewer = django_user_model.objects.create_superuser("viewer", password="pw")
    cookie = session(viewer)
    for _ in range(PER_USER + 1):  # 400s (bad server id) hold no slot once answered
        assert open_get(live_server, "/export/runs.csv?server=abc", cookie).status == 400
    held.release.set()
    for _ in range(PER_USER + 1):  # one after the other: each read to its end, its slot given back
        response = open_get(live_server, "/export/runs.csv", cookie)
        assert response.status == 200 and response.read().decode().splitlines() == ["held", "done"]


def test_the_slots_of_a_web_process_that_died_free_when_their_leases_end(settings, monkeypatch):
    from dashboards.export import slots
    from store.redis_client import shared

    settings.EXPORT_PER_USER, settings.EXPORT_PER_PROCESS = PER_USER, PER_PROCESS
    monkeypatch.setattr(slots, "_streaming", 0)
    user_id = 987654
    now = time.time()
    shared().delete(slots.key(user_id))
    shared().zadd(slots.key(user_id), {"dead-1": now - 1, "alive-1": now + slots.LEASE})  # one lease ran out
    mine = slots.take(user_id)
    with pytest.raises(slots.Busy, match="already have 2 CSV exports"):
        slots.take(user_id)
    slots.give_back(mine)
    assert set(shared().zrange(slots.key(user_id), 0, -1)) == {b"alive-1"}
