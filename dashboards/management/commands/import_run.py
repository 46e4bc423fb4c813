"""`manage.py import_run FILE [--as NAME]`: runs exported by another installation, with their series."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from collectors.file_arg import read_file_arg
from dashboards.reports.run_file import RunFileError, import_file


class Command(BaseCommand):
    help = ("Store the runs of a file written by `export_run` (their server, made here if needed and not polled, "
            "series, annotations and holders); importing it again stores nothing new (docs/collect.md).")

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE")
        parser.add_argument("--as", dest="name", default="", metavar="NAME",
                            help="the server's name here (default: its name where it was exported)")

    def handle(self, *args, **options):
        path = Path(options["file"])
        data = read_file_arg(path)
        try:
            done = import_file(data, str(path), options["name"])
        except RunFileError as exc:
            raise CommandError(str(exc)) from None
        for line in done.lines():
            self.stdout.write(line)
