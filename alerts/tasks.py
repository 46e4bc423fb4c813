"""Celery tasks: evaluate the rules, then mail what the evaluation queued."""

from celery import shared_task
from celery.utils.log import get_task_logger

from alerts import evaluation, pruning, sending

log = get_task_logger(__name__)


@shared_task
def evaluate_rules() -> None:
    changes = evaluation.evaluate_all()
    sent = sending.send_due()
    if changes or sent:
        log.info("alerts: %s state changes, %s e-mails sent", changes, sent)


@shared_task
def send_notifications() -> None:
    sending.send_due()


@shared_task
def prune_history() -> None:
    removed = pruning.prune()
    if removed:
        log.info("alerts: pruned %s old rows", removed)
