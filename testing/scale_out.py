"""The beat and the checks of a scale-out run (collectors/tests/test_scale_out.py, bench/scale_out.py)."""

import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime

from collectors.models import PollRecord
from collectors.tasks import dispatch_due_polls

TICK = 0.25  # seconds between dispatcher runs


def beat_until(done: Callable[[], bool], timeout: float) -> None:
    """Run the dispatcher every TICK (as Celery beat would) until done() or timeout seconds."""
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        dispatch_due_polls()
        time.sleep(TICK)


def run_beat(seconds: float) -> None:
    beat_until(lambda: False, seconds)


def polled_since(at: datetime) -> set[int]:
    return set(PollRecord.objects.filter(started_at__gt=at).values_list("server_id", flat=True))


def due_time_faults(ids: set[int], start: datetime, until: datetime, interval: float) -> list[str]:
    """Every (server, due time) between start and until polled exactly once, none skipped: what broke that."""
    rows = list(PollRecord.objects.filter(server_id__in=ids, started_at__gt=start, due_at__lt=until)
                .values_list("server_id", "due_at"))
    faults = [f"server {s}: due {d:%H:%M:%S.%f} polled {n} times" for (s, d), n in Counter(rows).items() if n > 1]
    by_server: dict[int, list[datetime]] = {}
    for server_id, due in rows:
        by_server.setdefault(server_id, []).append(due)
    for server_id in ids:
        due = sorted(set(by_server.get(server_id, [])))
        gaps = [b for a, b in zip(due, due[1:], strict=False) if (b - a).total_seconds() > interval * 1.5]
        faults += [f"server {server_id}: no poll due in the interval before {b:%H:%M:%S}" for b in gaps]
        if len(due) < 2:
            faults.append(f"server {server_id}: {len(due)} polls due in the window")
    return faults
