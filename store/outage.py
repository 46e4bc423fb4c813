"""PostgreSQL unreachable: the errors that say so, and periodic work that waits it out.

A periodic task (maintenance, alert evaluation) that finds PostgreSQL away has
nothing to lose by stopping: what it would read or write is still there (the
samples wait in the store's Redis buffer) and its next run, a minute later,
does the work. So it logs one warning line, not a traceback per run, and returns.
"""

import functools
import logging
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


def skipped_while_down(result: Any = None) -> Callable:
    """Decorate periodic work: with PostgreSQL unreachable, warn once, drop the connection, return `result`."""
    def decorate(work: Callable) -> Callable:
        @functools.wraps(work)
        def run(*args, **kwargs):
            try:
                return work(*args, **kwargs)
            except DOWN_ERRORS as exc:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                log.warning("%s.%s skipped: PostgreSQL unreachable (%s); the next run catches up",
                            work.__module__, work.__name__, reason)
                drop_connection()
                return result
        return run
    return decorate
