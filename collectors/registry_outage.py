"""What the collectors say while PostgreSQL is away: a line when the outage starts, once a minute while it
lasts and when PostgreSQL answers again.

Dispatch (every second) and each batch fall back to the registry's copy and used to say so every time: two
lines a second (libpq's message has a hint line) for as long as the outage lasted, burying `up`'s own
"postgresql is not running any more".
"""

import logging
import threading
import time

log = logging.getLogger("collectors.fleet_cache")

SAY_EVERY_S = 60.0


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class OutageLog:
    """One process's outage, as its registry reads see it (threads of a worker share it)."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock, self.said_at, self.lock = clock, None, threading.Lock()

    def down(self, exc: BaseException) -> None:
        with self.lock:
            now = self.clock()
            if self.said_at is not None and now - self.said_at < SAY_EVERY_S:
                return
            self.said_at = now
        log.warning("collectors: PostgreSQL unreachable (%s); polling the registry as last read and trying "
                    "PostgreSQL again at every dispatch tick (1 s) and batch (said once a minute while it lasts)",
                    first_line(exc))

    def up(self) -> None:
        with self.lock:
            if self.said_at is None:
                return
            self.said_at = None
        log.warning("collectors: PostgreSQL answers again; the registry is read from it")


OUTAGE = OutageLog()
