"""The test process's embedded PostgreSQL (monitor.settings_test), stopped and started again for outage tests."""

from pathlib import Path

import pgserver
from django.conf import settings
from django.db import close_old_connections

from monitor.runtime import embedded


def stop_postgres() -> None:
    embedded.postgres_stop(Path(settings.VAR_DIR))


def restart_postgres() -> None:
    pgserver.get_server(Path(settings.VAR_DIR) / "pg").ensure_postgres_running()
    close_old_connections()
