"""Celery beat with its broker gone says so in one line a minute, not ~190 lines of traceback a tick."""

import logging
from pathlib import Path

from celery import Celery
from celery.beat import ScheduleEntry, Scheduler

from monitor.beat_log import BrokerDownFilter


def installed() -> list[BrokerDownFilter]:
    """The filter monitor.celery puts on beat's logger (imported with the Django project)."""
    return [f for f in logging.getLogger("celery.beat").filters if isinstance(f, BrokerDownFilter)]


def test_an_unreachable_broker_is_said_once_a_minute_without_traceback(tmp_path: Path, caplog):
    app = Celery("beat-test", broker=f"redis+socket://{tmp_path}/no-redis.sock")  # nothing listens there
    beat = Scheduler(app, lazy=True)
    entry = ScheduleEntry(name="dispatch-polls", task="collectors.tasks.dispatch_due_polls", schedule=1.0, app=app)
    now = [1000.0]
    for f in installed():
        f.clock, f.said_at = (lambda: now[0]), float("-inf")
    caplog.set_level(logging.INFO, logger="celery.beat")

    for _ in range(3):  # three ticks of the 1 s dispatch
        beat.apply_entry(entry)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None
    text = errors[0].getMessage()
    assert "dispatch-polls" in text and "no-redis.sock" in text and "Redis" in text
    assert "Traceback" not in caplog.text and "format_stack" not in caplog.text

    now[0] += 60  # a minute on, still down: said again
    beat.apply_entry(entry)
    assert len([r for r in caplog.records if r.levelno >= logging.ERROR]) == 2


def test_other_beat_errors_keep_their_traceback(caplog):
    caplog.set_level(logging.INFO, logger="celery.beat")
    try:
        raise ValueError("a bug")
    except ValueError:
        logging.getLogger("celery.beat").error("Message Error: %s\n%s", "a bug", [], exc_info=True)
    (record,) = caplog.records
    assert record.exc_info is not None and "ValueError: a bug" in caplog.text
