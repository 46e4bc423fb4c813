"""The Celery app: configured from Django settings (CELERY_ namespace)."""

import os

from celery import Celery
from celery.signals import task_prerun
from django.db import close_old_connections

from monitor import beat_log

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")

app = Celery("monitor")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
beat_log.install()


@task_prerun.connect
def reuse_database_connection(task=None, **kwargs) -> None:
    """Keep a task thread's PostgreSQL connection across tasks, as Django keeps one across requests.

    Celery's Django fixup would close it before and after every task (CELERY_DB_REUSE_MAX is
    set high in settings): a new PostgreSQL backend for every poll batch. Only a broken one or
    one older than CONN_MAX_AGE is closed here; an eager task runs inside its caller's transaction.
    """
    if task is not None and task.request.is_eager:
        return
    close_old_connections()
