"""The watchdog: polls that stop are mailed and shown, from outside the Celery worker."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from alerts import watchdog, watchdog_state
from collectors.batch import poll_server
from collectors.models import ServerHealth

pytestmark = pytest.mark.django_db


def test_a_stopped_worker_is_mailed_once_and_its_return_too(watched, inbox):
    assert poll_server(watched.id).ok  # the worker polls ...
    polled = ServerHealth.objects.get(server=watched).last_success_at
    assert not watchdog.check(polled + timedelta(seconds=29)).blind  # < 3 intervals of 10 s
    assert inbox.messages == []
    # ... and stops: no poll after `polled`.
    stalled = watchdog.check(polled + timedelta(seconds=31))
    assert stalled.blind and f"since {polled:%Y-%m-%d %H:%M:%S} UTC" in stalled.reason
    assert watchdog.check(polled + timedelta(minutes=10)).blind
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"]
    assert inbox.messages[0]["To"] == "oncall@example.com" and "Celery worker or beat" in inbox.text(0)
    assert poll_server(watched.id).ok  # the worker is back
    assert not watchdog.check().blind
    assert inbox.subjects()[1:] == ["[SteadyState] SteadyState polls again"]
    # Since the last poll that succeeded, as the first mail said; not since the watchdog noticed, 31 s later.
    assert f"(stalled since {polled:%Y-%m-%d %H:%M:%S} UTC)" in inbox.text(1)


def test_every_page_header_says_so(watched, admin_client, capsys):
    assert poll_server(watched.id).ok
    assert "Monitoring stalled" not in admin_client.get("/servers/").content.decode()
    ServerHealth.objects.filter(server=watched).update(last_success_at=watched.created_at - timedelta(minutes=1))
    type(watched).objects.filter(pk=watched.pk).update(created_at=watched.created_at - timedelta(minutes=5))
    for path in ("/", "/servers/", "/alerts/", "/runs/"):
        html = admin_client.get(path).content.decode()
        assert "Monitoring stalled" in html and "no poll of any server has succeeded" in html, path
    call_command("watchdog", "--once")
    assert "blind: no poll of any server" in capsys.readouterr().out


def test_a_server_never_polled_gets_its_intervals_before_the_alarm(watched):
    assert not watchdog.check(watched.created_at + timedelta(seconds=29)).blind
    assert watchdog.check(watched.created_at + timedelta(seconds=31)).blind


def test_the_first_polls_after_a_start_get_their_intervals(watched, inbox):
    # SteadyState was stopped for an hour: its last poll is an hour old when it starts again.
    stopped = timezone.now() - timedelta(hours=1)
    ServerHealth.objects.update_or_create(server=watched, defaults={"last_success_at": stopped})
    type(watched).objects.filter(pk=watched.pk).update(created_at=stopped - timedelta(days=1))
    start = watchdog_state.mark_started(timezone.now()).started_at
    early = watchdog.check(start + timedelta(seconds=29))  # 3 intervals of 10 s after the start: not yet
    assert not early.blind and early.waiting
    assert inbox.messages == []
    stalled = watchdog.check(start + timedelta(seconds=31))  # no poll since the start: a stall
    assert stalled.blind and f"since {stopped:%Y-%m-%d %H:%M:%S} UTC" in stalled.reason
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"]


def test_a_restart_while_blind_waits_for_a_poll_before_saying_polls_again(watched, inbox):
    stopped = timezone.now() - timedelta(hours=1)
    ServerHealth.objects.update_or_create(server=watched, defaults={"last_success_at": stopped})
    type(watched).objects.filter(pk=watched.pk).update(created_at=stopped - timedelta(days=1))
    assert watchdog.check().blind  # mailed before the restart
    start = watchdog_state.mark_started(timezone.now()).started_at
    assert watchdog.check(start + timedelta(seconds=1)).waiting
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"]  # no false "polls again"
    assert poll_server(watched.id).ok
    assert not watchdog.check().blind
    assert inbox.subjects()[1:] == ["[SteadyState] SteadyState polls again"]


def test_the_header_gives_a_fresh_start_its_intervals_too(watched, admin_client):
    stopped = timezone.now() - timedelta(hours=1)
    ServerHealth.objects.update_or_create(server=watched, defaults={"last_success_at": stopped})
    type(watched).objects.filter(pk=watched.pk).update(created_at=stopped - timedelta(days=1))
    assert "Monitoring stalled" in admin_client.get("/servers/").content.decode()
    watchdog_state.mark_started(timezone.now())
    assert "Monitoring stalled" not in admin_client.get("/servers/").content.decode()
