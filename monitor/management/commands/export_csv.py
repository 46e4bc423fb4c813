"""manage.py export_csv: the same CSV as /export.csv, to a file or stdout."""

import sys

from django.core.management.base import BaseCommand, CommandError

from dashboards.csv_safe import CsvLines
from dashboards.export_params import ExportError, series_export
from dashboards.export_series import csv_rows


class Command(BaseCommand):
    help = "Export series as CSV: one row per timestamp, one column per server and metric."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--server", action="append", required=True,
                            help="server name or id; repeat or separate with commas for several")
        parser.add_argument("--metrics", action="append", required=True,
                            help="metric names or * patterns, comma separated (e.g. tps,wait.time_ps:*)")
        parser.add_argument("--from", dest="start", required=True, help="ISO 8601 start, UTC if no offset")
        parser.add_argument("--to", dest="end", required=True, help="ISO 8601 end, UTC if no offset")
        parser.add_argument("--step", help="seconds per row (default: full resolution)")
        parser.add_argument("--mode", choices=["rate", "delta"], default="rate",
                            help="counters as per-second rates (default) or per-interval deltas")
        parser.add_argument("-o", "--output", help="file to write (default: stdout)")

    def handle(self, *args, **options) -> None:
        try:
            export = series_export(
                options["server"], options["metrics"], options["start"], options["end"],
                step=options["step"], mode=options["mode"], full=not options["step"],
            )
        except ExportError as error:
            raise CommandError(str(error)) from None
        out = open(options["output"], "w", newline="", encoding="utf-8") if options["output"] else sys.stdout
        count = -1  # the header is not a row

        def counted(rows):
            nonlocal count
            for row in rows:
                count += 1
                yield row

        try:
            for text in CsvLines().lines(counted(csv_rows(export))):
                out.write(text)
        finally:
            if out is not sys.stdout:
                out.close()
        if options["output"]:
            self.stderr.write(f"{count} rows written to {options['output']}")
