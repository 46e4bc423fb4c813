"""Celery tasks: evaluate the rules, then mail what the evaluation queued."""

from celery import shared_task
from celery.utils.log import get_task_logger

from alerts import evaluation, pruning, sending
from store.outage import skipped_while_down

log = get_task_logger(__name__)


@shared_task
@skipped_while_down()  # through a PostgreSQL outage: one warning; the next run evaluates and mails
def evaluate_rules() -> None:
    changes = evaluation.evaluate_all()
    sent = sending.send_due()
    if changes or sent:
        log.info("alerts: %s state changes, %s e-mails sent", changes, sent)


@shared_task
@skipped_while_down()
def send_notifications() -> None:
    sending.send_due()


@shared_task
@skipped_while_down()
def prune_history() -> None:
    removed = pruning.prune()
    if removed:
        log.info("alerts: pruned %s old rows", removed)
