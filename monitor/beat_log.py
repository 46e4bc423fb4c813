"""Celery beat's log while the broker (Redis) does not answer: one line a minute, not a traceback a tick.

Beat logs every task it cannot send with its stack and a six-exception traceback: about 190 lines for each
tick of the 1 s poll dispatch while Redis restarts, burying `up`'s own "redis is not running any more".
"""

import logging
import threading
import time

from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

BROKER_DOWN = (OperationalError, RedisConnectionError, ConnectionError)
SAY_EVERY_S = 60.0


def broker_down(exc: BaseException | None) -> bool:
    """The exception, or one it was raised from, says the broker cannot be reached."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, BROKER_DOWN):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


class BrokerDownFilter(logging.Filter):
    """Turns beat's "Message Error" for an unreachable broker into one line, said at most once a minute."""

    def __init__(self, clock=time.monotonic) -> None:
        super().__init__()
        self.clock, self.said_at, self.lock = clock, float("-inf"), threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not str(record.msg).startswith("Message Error") or not broker_down(exc):
            return True
        with self.lock:
            if self.clock() - self.said_at < SAY_EVERY_S:
                return False
            self.said_at = self.clock()
        record.msg, record.args = "beat: %s (the broker, Redis, does not answer: said once a minute while it lasts)", (
            exc,)
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def install() -> None:
    logging.getLogger("celery.beat").addFilter(BrokerDownFilter())
