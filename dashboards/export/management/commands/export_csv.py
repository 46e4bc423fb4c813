"""manage.py export_csv: the same CSV as /export.csv, to a file or stdout."""

from django.core.management.base import BaseCommand, CommandError

from dashboards.export.csv_safe import CsvLines
from dashboards.export.params import ExportError, series_export
from dashboards.export.series import checked_columns, csv_rows


class Command(BaseCommand):
    help = "Export series as CSV: one row per time bucket, one column per server and metric."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--server", action="append", default=[],
                            help="server name or id; repeat or separate with commas for several")
        parser.add_argument("--run", help="a run id: its server, start and end (unless given)")
        parser.add_argument("--metrics", action="append", required=True,
                            help="metric names or * patterns, comma separated (e.g. tps,wait.time_ps:*)")
        parser.add_argument("--from", dest="start", help="ISO 8601 start, UTC if no offset")
        parser.add_argument("--to", dest="end", help="ISO 8601 end, UTC if no offset (default: now)")
        parser.add_argument("--step", help="seconds per row, whole steps inside the range: a counter's deltas "
                                           "over the seconds they cover, a gauge's mean (default: one row per poll)")
        parser.add_argument("--minmax", action="store_true", help="each bucket's min and max columns too")
        parser.add_argument("--seconds", action="store_true",
                            help="each counter's seconds covered per row too (rate = sum of deltas / seconds)")
        parser.add_argument("--mode", choices=["rate", "delta"], default="rate",
                            help="counters as per-second rates (default) or per-interval deltas")
        parser.add_argument("-o", "--output", help="file to write (default: stdout, also with -o -)")

    def handle(self, *args, **options) -> None:
        try:
            export = series_export(
                options["server"], options["metrics"], options["start"], options["end"],
                step=options["step"], mode=options["mode"], full=not options["step"], run=options["run"],
                minmax=options["minmax"], seconds=options["seconds"],
            )
            checked_columns(export)  # a name matching nothing, or beyond the size bound, before any output
        except ExportError as error:
            raise CommandError(str(error)) from None
        if options["output"] in (None, "-"):
            self.write(export, lambda text: self.stdout.write(text, ending=""))
            return
        with open(options["output"], "w", newline="", encoding="utf-8") as out:
            count = self.write(export, out.write)
        self.stderr.write(f"{count} rows written to {options['output']}")

    def write(self, export, write) -> int:
        """Write the CSV piece by piece; return the number of rows after the header."""
        count = -1
        for text in CsvLines().lines(csv_rows(export)):
            write(text)
            count += text.count("\n")
        return count
