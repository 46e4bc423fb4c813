"""`manage.py collect_mark FILE`: mark a moment (annotation, run start or end) of a running collection."""

from argparse import Namespace

from django.core.management.base import BaseCommand, CommandError

from collectors.collect_marks import MarkError
from collectors.standalone import add_mark_arguments, run_mark


class Command(BaseCommand):
    help = ("Mark this moment in a running `manage.py collect` (an annotation, or a run's start or end): "
            "the collection copies it into its file within a second (docs/collect.md).")
    requires_system_checks: list = []

    def add_arguments(self, parser):
        add_mark_arguments(parser)

    def handle(self, *args, **options):
        try:
            run_mark(Namespace(**options), self.stdout.write)
        except (MarkError, OSError) as exc:
            raise CommandError(str(exc)) from None
