"""The page header's watchdog verdict is one SQL statement, whether the fleet is polled, blind or just started."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from alerts import watchdog
from collectors.models import ServerHealth
from testing.servers import make_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(settings):
    settings.WATCHDOG_INTERVALS = 3
    return make_server("sandbox", poll_interval=10)


def judged(now, started=None):
    with CaptureQueriesContext(connection) as queries:
        found = watchdog.verdict(now, started)
    return found, len(queries.captured_queries)


def test_it_judges_a_polled_fleet_in_one_statement(server):
    polled = timezone.now().replace(microsecond=0)
    ServerHealth.objects.create(server=server, last_success_at=polled)
    assert judged(polled + timedelta(seconds=29)) == (watchdog.Verdict(False), 1)


def test_it_judges_a_blind_fleet_in_one_statement(server):
    polled = timezone.now().replace(microsecond=0)
    ServerHealth.objects.create(server=server, last_success_at=polled)
    found, statements = judged(polled + timedelta(seconds=31))
    assert statements == 1
    assert found.blind and f"since {polled:%Y-%m-%d %H:%M:%S} UTC (more than 3 poll intervals)" in found.reason


def test_it_judges_a_fresh_start_in_one_statement(server):
    polled = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    ServerHealth.objects.create(server=server, last_success_at=polled)
    started = polled + timedelta(hours=1)
    found, statements = judged(started + timedelta(seconds=29), started)
    assert statements == 1 and found.waiting and not found.blind
    found, statements = judged(started + timedelta(seconds=31), started)
    assert statements == 1 and found.blind


def test_it_judges_no_enabled_server_in_one_statement(server):
    type(server).objects.filter(pk=server.pk).update(enabled=False)
    assert judged(timezone.now()) == (watchdog.Verdict(False), 1)
