"""`manage.py collect SERVER-URL --to FILE`: poll one server into a collection file, with no database nor Redis."""

from argparse import Namespace

from django.core.management.base import BaseCommand, CommandError

from collectors import collect_file
from collectors.standalone import UsageError, add_collect_arguments, run_collect


class Command(BaseCommand):
    help = ("Poll one server (the worker's sources, sessions and deltas) into a compressed file of raw readings, "
            "for a duration or until Ctrl-C; load it later with `manage.py load FILE --as NAME` (docs/collect.md).")
    requires_system_checks: list = []  # nothing here reads the database or Redis, so nothing to check

    def add_arguments(self, parser):
        add_collect_arguments(parser)

    def handle(self, *args, **options):
        try:
            run_collect(Namespace(**options), self.stdout.write)
        except (UsageError, collect_file.CollectionFileError, OSError) as exc:
            raise CommandError(str(exc)) from None
