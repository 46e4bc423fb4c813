"""The watchdog: polls that stop are mailed and shown, from outside the Celery worker."""

from datetime import timedelta

import pytest
from django.core.management import call_command

from alerts import watchdog
from collectors import state
from collectors.batch import poll_server
from collectors.models import ServerHealth
from testing.servers import make_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(inbox, settings, mariadb):
    settings.ALERT_RECIPIENTS = ["oncall@example.com"]
    settings.WATCHDOG_INTERVALS = 3
    state.client().delete(watchdog.STATE_KEY)
    server = make_server("sandbox", port=mariadb.port, poll_interval=10)
    yield server
    state.client().delete(watchdog.STATE_KEY)


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
