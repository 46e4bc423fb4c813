#!/usr/bin/env python
"""SteadyState's only entry point: runserver, migrate and our own commands."""

import os
import sys

NO_DATABASE = ("collect", "collect_mark")  # commands that touch neither PostgreSQL nor Redis


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
    from django.conf import settings

    from monitor.runtime import embedded

    # Commands need the database; start the embedded one when no URL is set (not for
    # collect, which runs on hosts that have neither SteadyState's database nor Redis).
    needs_db = len(sys.argv) < 2 or sys.argv[1] not in NO_DATABASE
    if needs_db and settings.EMBEDDED_DB and os.environ["DJANGO_SETTINGS_MODULE"] == "monitor.settings":
        embedded.postgres_url(settings.VAR_DIR, stop_at_exit=True)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
