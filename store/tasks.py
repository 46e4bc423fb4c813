"""Celery tasks of the store: periodic maintenance."""

from celery import shared_task
from celery.utils.log import get_task_logger

from store import maintenance
from store.outage import skipped_while_down

log = get_task_logger(__name__)


@shared_task(name="store.tasks.maintain", ignore_result=True)
@skipped_while_down({"skipped": "PostgreSQL unreachable"})  # the buffer keeps the samples until a later run
def maintain() -> dict:
    """Flush the buffer, create partitions ahead, compact closed hours, roll up, apply retention."""
    report = maintenance.run()
    log.info("store maintenance: %s", report)
    return report
