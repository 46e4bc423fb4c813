"""Polls a live test drives itself: a server polled every second while its load runs, and one poll's time."""

import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from django.utils import timezone

from collectors.batch import poll_server


def poll_while(server_id: int, sources: Sequence[str], work: Callable[[], object]) -> tuple[datetime, datetime]:
    """Run `work` in a thread while polling the server's `sources` every second; the range polled."""
    poll_server(server_id, only=list(sources))  # the counters' first reading: no delta yet
    start = timezone.now()
    run = threading.Thread(target=work, daemon=True)
    run.start()
    tick = time.monotonic()
    while run.is_alive():
        for source in poll_server(server_id, only=list(sources)).sources:
            assert source.ok, source.error
        tick += 1.0
        time.sleep(max(0.0, tick - time.monotonic()))
    return start, timezone.now()


def statements_polled_at(server_id: int, sources: Sequence[str]) -> datetime:
    """One poll of `sources`, each read ok; when its statements reading was taken."""
    outcomes = poll_server(server_id, only=list(sources)).sources
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    sample = next(o.sample for o in outcomes if o.name == "statements")
    assert sample is not None
    return sample.ts
