"""A free TCP port on 127.0.0.1 for a server we are about to start (a sandbox MariaDB, node_exporter, a test's).

bind(0) takes a port from the kernel's ephemeral range, which every process shares: between our close and the
server's bind, another process's bind(0) (or an outgoing connection) could be handed the same port, and the
test suite's parallel workers did get one another's (a worker's `up` answered as another's SMTP sink).
use_range() gives this process a range of its own instead (monitor/settings_test.py gives each test process
one, below the ephemeral range): its ports are handed out in turn, each checked free, so none is handed out
twice until the range wraps and neither another process of the suite nor the kernel picks one. A child does
not inherit it: `up` started on a port of the range would hand out that port again to its demo MariaDB.
"""

import itertools
import random
import socket
import threading

_lock = threading.Lock()
_range: tuple[int, int] | None = None
_turns = itertools.count()


def use_range(low: int, high: int) -> None:
    """This process's free_port() hands out ports of [low, high] only, starting at a random one (two suites run
    at once on one machine hand out different ports first)."""
    global _range, _turns
    if not 1024 <= low <= high <= 65535:
        raise ValueError(f"ports {low}-{high}: give a range within 1024-65535")
    with _lock:
        _range, _turns = (low, high), itertools.count(random.randrange(high - low + 1))


def free_port() -> int:
    """A port nothing listens on: the next free one of this process's range, else one bind(0) finds."""
    if _range is None:
        return any_port()
    low, high = _range
    for _ in range(high - low + 1):
        with _lock:
            port = low + next(_turns) % (high - low + 1)
        if is_free(port):
            return port
    raise RuntimeError(f"no free port in {low}-{high}: every one is in use")


def is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def any_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
