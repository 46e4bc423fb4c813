"""Celery tasks: the beat tick finds due servers; batches of them are polled concurrently."""

import gc
import threading
import time
from datetime import UTC, datetime
from itertools import groupby

from celery import shared_task
from celery.signals import celeryd_after_setup, worker_ready
from celery.utils.log import get_task_logger
from django.conf import settings

from collectors import fleet_cache, pruning, schedule, state
from collectors.batch import poll_servers
from collectors.due_pool import DuePool
from collectors.results import PollResult
from store.outage import skipped_while_down

log = get_task_logger(__name__)

_executor: DuePool | None = None
# Servers whose last poll in this worker process failed: a failure is logged when it starts and when it ends,
# not at every poll (a server down for a day at 10 s polls wrote 8,640 warnings saying the same).
_failing: set[int] = set()
_failing_lock = threading.Lock()


def executor() -> DuePool:
    global _executor
    if _executor is None:
        # Polls at once per worker process; a poll claimed early waits for its due time outside them.
        _executor = DuePool(settings.COLLECTORS_THREADS, thread_name_prefix="poll")
    return _executor


@celeryd_after_setup.connect
def name_worker(sender: str, **kwargs) -> None:
    """A worker's locks carry its hostname, kept alive by a heartbeat (collectors.state)."""
    state.start_heartbeat(sender)


# Allocations between young collections (Python's default is 700): a batch's poll results live until the
# whole batch is recorded, so at 700 they outlive young collections and bring on full ones over the heap
# (85 ms each in-process, docs/benchmarks.md).
GC_YOUNG = 10_000


@worker_ready.connect
def tune_collection(**kwargs) -> None:
    """Start-up objects out of every later collection, and young collections rarer."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


@shared_task(ignore_result=True)
def dispatch_due_polls(now: float | None = None) -> int:
    """Enqueue the due servers in batches; each batch expires after its interval."""
    # From PostgreSQL, or through an outage the registry as last read (the samples go to the store's buffer).
    servers = fleet_cache.enabled_intervals()
    intervals = dict(servers)
    due = schedule.claim_due(servers, time.time() if now is None else now)
    due.sort(key=lambda item: (intervals[item[0]], item[1]))  # batches of neighbouring due times
    size = settings.COLLECTORS_BATCH_SIZE  # servers per task
    for interval, neighbours in groupby(due, key=lambda item: intervals[item[0]]):
        group = list(neighbours)
        for start in range(0, len(group), size):
            batch = group[start:start + size]
            poll_batch.apply_async(args=[[i for i, _ in batch], [d for _, d in batch]], expires=interval)
    return len(due)


@shared_task(ignore_result=True)
def poll_batch(server_ids: list[int], due_ats: list[float]) -> int:
    """Poll a batch of servers concurrently; returns how many were polled."""
    servers = fleet_cache.servers_by_id(server_ids)
    due: dict[int, datetime | None] = {sid: datetime.fromtimestamp(at, UTC)
                                       for sid, at in zip(server_ids, due_ats, strict=True)}
    results = poll_servers(servers, due, executor=executor())
    log_changes([r for r in results if not r.skipped])
    return sum(1 for r in results if not r.skipped)


def log_changes(polled: list[PollResult]) -> None:
    """Log the servers whose polls started failing (with why) and those that answer again."""
    with _failing_lock:
        started = [r for r in polled if not r.ok and r.server_id not in _failing]
        recovered = [r for r in polled if r.ok and r.server_id in _failing]
        _failing.update(r.server_id for r in started)
        _failing.difference_update(r.server_id for r in recovered)
    if started:
        log.warning("polls failed (said again once they succeed): %s", "; ".join(map(failure_text, started)))
    if recovered:
        log.warning("polls succeed again: %s", ", ".join(r.server_name for r in recovered))


def failure_text(r: PollResult) -> str:
    """The poll's error, which names its server already where the connection failed."""
    error = r.error or "no error text"
    return error if error.startswith(f"{r.server_name}: ") else f"{r.server_name}: {error}"


@shared_task(ignore_result=True)
@skipped_while_down(0)
def prune_holders() -> int:
    """Hourly: forget holders of the oldest transaction that ended long ago (collectors.pruning)."""
    return pruning.prune_holders()
