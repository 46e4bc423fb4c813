"""PostgreSQL unreachable: the errors that say so, and periodic work that waits it out.

A periodic task (maintenance, alert evaluation) that finds PostgreSQL away has
nothing to lose by stopping: what it would read or write is still there (the
samples wait in the store's Redis buffer) and its next run, a minute later,
does the work. So it logs one warning line, not a traceback per run, and returns.
"""

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from django.db import connection
from django.db.utils import InterfaceError, OperationalError

log = logging.getLogger(__name__)

DOWN_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError, OperationalError, InterfaceError)


def drop_connection() -> None:
    """Forget a broken connection so the next use reconnects."""
    try:
        connection.close()
    except Exception:  # noqa: BLE001 - the connection is already broken
        connection.connection = None


def first_line(exc: BaseException) -> str:
    """libpq's message without its hint lines."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


SAY_EVERY_S = 60.0


class OutageLog:
    """One process's lines on an outage that each batch meets: one when it starts, one a minute while it lasts
    (with what the batches in between met: `counted`), one when PostgreSQL answers again. Said every batch, a
    fleet's outage buried `up`'s own "postgresql is not running any more" under lines a second."""

    def __init__(self, log: logging.Logger, down: str, up: str, clock: Callable[[], float] = time.monotonic) -> None:
        """`down`: a format of the first line of the error (`reason`) and `counted`; `up`: the line at its end."""
        self.log, self.down_text, self.up_text, self.clock = log, down, up, clock
        self.said_at: float | None = None
        self.counted = 0
        self.lock = threading.Lock()

    def down(self, exc: BaseException, count: int = 0) -> None:
        with self.lock:
            self.counted += count
            now = self.clock()
            if self.said_at is not None and now - self.said_at < SAY_EVERY_S:
                return
            self.said_at, counted, self.counted = now, self.counted, 0
        self.log.warning(self.down_text.format(reason=first_line(exc), counted=counted))

    def up(self) -> None:
        if self.said_at is None:  # the common case, read without the lock: a batch that wrote
            return
        with self.lock:
            if self.said_at is None:
                return
            self.said_at, self.counted = None, 0
        self.log.warning(self.up_text)


def skipped_while_down(result: Any = None) -> Callable:
    """Decorate periodic work: with PostgreSQL unreachable, warn once, drop the connection, return `result`."""
    def decorate(work: Callable) -> Callable:
        @functools.wraps(work)
        def run(*args, **kwargs):
            try:
                return work(*args, **kwargs)
            except DOWN_ERRORS as exc:
                log.warning("%s.%s skipped: PostgreSQL unreachable (%s); the next run catches up",
                            work.__module__, work.__name__, first_line(exc))
                drop_connection()
                return result
        return run
    return decorate
