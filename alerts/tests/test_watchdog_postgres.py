"""A PostgreSQL restart of a few seconds (`up` restarts one that died) is no stall: the collectors poll on into
the store's Redis buffer. The watchdog mails only when it cannot read PostgreSQL for a minute."""

from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection

from alerts import watchdog
from collectors.batch import poll_server
from collectors.models import ServerHealth

pytestmark = pytest.mark.django_db(transaction=True)  # the connection is closed and reopened


@contextmanager
def postgres_gone(tmp_path):
    """PostgreSQL refusing connections, as while it restarts: the connection goes to a socket nobody serves."""
    real = connection.settings_dict["HOST"]
    connection.close()
    connection.settings_dict["HOST"] = str(tmp_path)
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["HOST"] = real


def test_a_postgres_restart_mails_nothing(watched, inbox, tmp_path):
    assert poll_server(watched.id).ok
    polled = ServerHealth.objects.get(server=watched).last_success_at
    with postgres_gone(tmp_path):
        for seconds in (5, 20, 35, 50):  # four rounds over 45 s of an unreadable PostgreSQL
            found = watchdog.check(polled + timedelta(seconds=seconds))
            assert found.unreadable and "cannot read PostgreSQL" in found.reason
    assert poll_server(watched.id).ok
    assert not watchdog.check().blind
    assert inbox.messages == []  # neither "blind" nor "polls again"


def test_postgres_unreadable_for_a_minute_is_mailed_once(watched, inbox, tmp_path):
    assert poll_server(watched.id).ok
    polled = ServerHealth.objects.get(server=watched).last_success_at
    with postgres_gone(tmp_path):
        watchdog.check(polled + timedelta(seconds=5))
        watchdog.check(polled + timedelta(seconds=64))
        assert inbox.messages == []  # 59 s unreadable
        watchdog.check(polled + timedelta(seconds=65))
        watchdog.check(polled + timedelta(seconds=80))
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"]
    assert "cannot read PostgreSQL" in inbox.text(0)
