"""The environment a child process (a command, a Celery worker) needs to share a test's state."""

import os
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import connection


def child_env(**extra: str) -> dict[str, str]:
    """This process's private Postgres (its test database, not the empty one), Redis and key, for a child."""
    parts = urlsplit(settings.DATABASE_URL)
    url = urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))
    return dict(os.environ, DJANGO_SETTINGS_MODULE="monitor.settings_test", DATABASE_URL=url,
                CREDENTIAL_KEY=settings.CREDENTIAL_KEY, **extra)
