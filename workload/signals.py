"""Stop a run cleanly on Ctrl-C or SIGTERM instead of dying with the run left open."""

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def on_signals(handle: Callable[[int], None]) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM call `handle(signum)`; outside the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda signum, _frame: handle(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_on_signals(stop: threading.Event):
    """Within the block, SIGINT and SIGTERM set `stop`."""
    return on_signals(lambda _signum: stop.set())
