"""A thread pool whose work waits for its due time in one timer thread, not in a pool thread.

The dispatcher claims polls up to a tick early. A poll that slept in its pool thread until due held that thread
while polls of other batches, due sooner, queued behind it and started late (docs/benchmarks.md, session 17);
here a poll takes a thread only once it is due, and never before.
"""

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime


class DuePool:
    def __init__(self, workers: int, thread_name_prefix: str = "poll"):
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=thread_name_prefix)
        self.name = thread_name_prefix
        self.waiting: list[tuple[float, int, Future, Callable, tuple]] = []
        self.order = itertools.count()  # equal due times keep their order, and futures are never compared
        self.changed = threading.Condition()
        self.timer: threading.Thread | None = None

    def submit(self, due_at: datetime | None, fn: Callable, *args) -> Future:
        """fn(*args) in a pool thread once due_at has come (at once if it has or is None)."""
        when = due_at.timestamp() if due_at is not None else 0.0
        if when <= time.time():
            return self.pool.submit(fn, *args)
        future: Future = Future()
        with self.changed:
            heapq.heappush(self.waiting, (when, next(self.order), future, fn, args))
            if self.timer is None:
                self.timer = threading.Thread(target=self.release_due, name=f"{self.name}-timer", daemon=True)
                self.timer.start()
            self.changed.notify()
        return future

    def release_due(self) -> None:
        """The timer thread: hands each waiting call to the pool when it is due."""
        while True:
            with self.changed:
                while not self.waiting or self.waiting[0][0] > time.time():
                    self.changed.wait(self.waiting[0][0] - time.time() if self.waiting else None)
                _, _, future, fn, args = heapq.heappop(self.waiting)
            try:
                self.pool.submit(relay, future, fn, args)
            except Exception as exc:  # noqa: BLE001 - the pool shut down: its caller must not wait forever
                future.set_exception(exc)


def relay(future: Future, fn: Callable, args: tuple) -> None:
    """fn's result or exception onto the future its caller holds."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(fn(*args))
    except BaseException as exc:  # noqa: BLE001 - handed to the caller, as the pool's own futures do
        future.set_exception(exc)
