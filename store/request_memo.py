"""Answers a request asks the store for again, kept for that request only (a page asks the same 8-32 times)."""

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class RequestMemo(Generic[T]):
    """read()'s answer per key between start() and stop() (request_started and request_finished, store.apps),
    each for at most `seconds` and until this process calls changed() (it wrote what the answers hold);
    the `size` newest keys at most. Outside a request every get() reads."""

    def __init__(self, seconds: float, size: int | None = None):
        self.seconds, self.size = seconds, size
        self._local = threading.local()  # .found: key -> (monotonic time, changes, answer); None outside a request
        self._changes = [0]  # changed() calls of any thread: answers kept before them are read again

    def start(self) -> None:
        self._local.found = OrderedDict()

    def stop(self) -> None:
        self._local.found = None

    def changed(self) -> None:
        self._changes[0] += 1

    def keeping(self) -> bool:
        """Inside a request (between start() and stop()): get() keeps its answers."""
        return getattr(self._local, "found", None) is not None

    def kept(self) -> list[tuple[Hashable, T]]:
        """The (key, answer) pairs get() would answer now without reading; none outside a request."""
        found: OrderedDict | None = getattr(self._local, "found", None)
        now = time.monotonic()
        return [(key, answer) for key, (at, changes, answer) in (found or {}).items()
                if now - at < self.seconds and changes == self._changes[0]]

    def get(self, key: Hashable, read: Callable[[], T]) -> T:
        found: OrderedDict | None = getattr(self._local, "found", None)
        kept = found.get(key) if found is not None else None
        if kept is not None and time.monotonic() - kept[0] < self.seconds and kept[1] == self._changes[0]:
            return kept[2]
        changes = self._changes[0]
        answer = read()
        if found is not None:
            found[key] = (time.monotonic(), changes, answer)
            found.move_to_end(key)
            while self.size is not None and len(found) > self.size:
                found.popitem(last=False)
        return answer
