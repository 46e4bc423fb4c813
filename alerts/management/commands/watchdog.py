"""manage.py watchdog: mail ALERT_RECIPIENTS when no poll succeeds for WATCHDOG_INTERVALS intervals (up runs it)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from alerts import watchdog


class Command(BaseCommand):
    help = "Watch the collectors from outside Celery: mail when polling stalls and when it resumes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="check once, print the verdict and exit")

    def handle(self, *args, **opts) -> None:
        if opts["once"]:
            found = watchdog.check()
            ok = f"waiting: {found.reason}" if found.waiting else "ok: polls succeed"
            self.stdout.write(f"blind: {found.reason}" if found.blind else ok)
            return
        # A line to know it runs (up's log, and tests starting it as a process of their own).
        self.stdout.write(f"watchdog: checking every {settings.WATCHDOG_CHECK_SECONDS} s for "
                          f"{settings.WATCHDOG_INTERVALS} poll intervals without a success", ending="\n")
        self.stdout.flush()
        watchdog.run_forever()
