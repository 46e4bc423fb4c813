"""Alert evaluation and store maintenance through a PostgreSQL outage: one warning each, nothing lost.

The suite's PostgreSQL is stopped while history-length readings keep coming (they
wait in the store's Redis buffer). The periodic tasks run as the worker runs them;
they must return, not raise, and once PostgreSQL is back their next runs store
the buffered readings and fire the rule they cross.
"""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.models import Event
from alerts.tasks import evaluate_rules
from store import buffer
from store.tasks import maintain
from testing.alerts import history, make_rule
from testing.postgres import restart_postgres, stop_postgres
from testing.store import reset_caches, truncate_tables


@pytest.fixture
def clean_store():
    reset_caches()
    yield
    truncate_tables()
    reset_caches()


def buffered() -> int:
    return buffer.client().llen(buffer.KEY) + buffer.client().llen(buffer.INFLIGHT)


@pytest.mark.django_db(transaction=True)
def test_evaluation_and_maintenance_wait_out_an_outage_and_catch_up(server, inbox, caplog, clean_store):
    rule, now = make_rule(threshold=100), timezone.now()
    history(server, [90], now - timedelta(seconds=20))  # stored: below the threshold
    stop_postgres()
    try:
        history(server, [120, 150], now)  # the outage's readings cross it
        assert buffered() == 2
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert evaluate_rules() is None  # old code: OperationalError out of the task
            assert maintain() == {"skipped": "PostgreSQL unreachable"}
        said = [(r.levelno, r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
        assert [(level, name) for level, name, _ in said] == [(logging.WARNING, "store.outage")] * 2, said
        assert said[0][2].startswith("alerts.tasks.evaluate_rules skipped: PostgreSQL unreachable (")
        assert said[1][2].startswith("store.tasks.maintain skipped: PostgreSQL unreachable (")
        assert buffered() == 2  # the failed flush kept them
    finally:
        restart_postgres()

    assert maintain()["flushed"] == 2
    assert buffered() == 0
    evaluate_rules()
    event = Event.objects.get(rule=rule, server=server)
    assert event.resolved_at is None and event.value == 150  # the last reading, taken during the outage
    assert event.since == now - timedelta(seconds=10)  # the first reading above 100
    assert len(inbox.messages) == 1 and inbox.messages[0]["To"] == "dba@example.com"
