"""Celery tasks: the beat tick finds due servers; batches of them are polled concurrently."""

import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from itertools import groupby

from celery import shared_task
from celery.signals import celeryd_after_setup
from celery.utils.log import get_task_logger

from collectors import schedule, state
from collectors.batch import poll_servers
from monitor.models import Server

log = get_task_logger(__name__)

BATCH_SIZE = int(os.getenv("COLLECTORS_BATCH_SIZE", "10"))  # servers per task
# Polls at once per worker process; some of them sleep until their due time (up to one tick).
THREADS = int(os.getenv("COLLECTORS_THREADS", "64"))
_executor: ThreadPoolExecutor | None = None


def executor() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="poll")
    return _executor


@celeryd_after_setup.connect
def name_worker(sender: str, **kwargs) -> None:
    """A worker's locks carry its hostname, kept alive by a heartbeat (collectors.state)."""
    state.start_heartbeat(sender)


@shared_task(ignore_result=True)
def dispatch_due_polls(now: float | None = None) -> int:
    """Enqueue the due servers in batches; each batch expires after its interval."""
    servers = list(Server.objects.filter(enabled=True).values_list("id", "poll_interval"))
    intervals = dict(servers)
    due = schedule.claim_due(servers, time.time() if now is None else now)
    due.sort(key=lambda item: (intervals[item[0]], item[1]))  # batches of neighbouring due times
    for interval, group in groupby(due, key=lambda item: intervals[item[0]]):
        group = list(group)
        for start in range(0, len(group), BATCH_SIZE):
            batch = group[start:start + BATCH_SIZE]
            poll_batch.apply_async(args=[[i for i, _ in batch], [d for _, d in batch]], expires=interval)
    return len(due)


@shared_task(ignore_result=True)
def poll_batch(server_ids: list[int], due_ats: list[float]) -> int:
    """Poll a batch of servers concurrently; returns how many were polled."""
    servers = list(Server.objects.filter(pk__in=server_ids, enabled=True))
    due = {sid: datetime.fromtimestamp(at, UTC) for sid, at in zip(server_ids, due_ats, strict=True)}
    results = poll_servers(servers, due, executor=executor())
    failed = [r.server_name for r in results if not r.skipped and not r.ok]
    if failed:
        log.warning("polls failed: %s", ", ".join(failed))
    return sum(1 for r in results if not r.skipped)
