"""`manage.py export_run --run ID | --sweep NAME -o FILE`: runs with their series, for another installation."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dashboards.reports.run_file import RunFileError, export
from servers.models import Run


class Command(BaseCommand):
    help = ("Write runs (--run, repeatable) or a sweep's runs (--sweep) with their server's series over their window, "
            "report figures, annotations and oldest-transaction holders to one file; `import_run` reads it "
            "(docs/collect.md).")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, action="append", default=[], metavar="ID", help="a run's id")
        parser.add_argument("--sweep", default="", help="every run of this sweep")
        parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the file to write")

    def handle(self, *args, **options):
        runs = list(Run.objects.select_related("server").filter(pk__in=options["run"]).order_by("started_at"))
        missing = set(options["run"]) - {r.id for r in runs}
        if missing:
            raise CommandError(f"--run: no run with id {', '.join(map(str, sorted(missing)))} (see /runs/)")
        if options["sweep"]:
            found = list(Run.objects.select_related("server").filter(sweep=options["sweep"]).order_by("started_at"))
            if not found:
                raise CommandError(f"--sweep: no run of a sweep named {options['sweep']!r} (see /scalability/)")
            runs += [r for r in found if r not in runs]
        if not runs:
            raise CommandError("give --run ID (repeatable) or --sweep NAME")
        try:
            data = export(runs)
        except RunFileError as exc:
            raise CommandError(str(exc)) from None
        Path(options["output"]).write_bytes(data)
        self.stdout.write(f"{len(runs)} runs written to {options['output']} ({len(data) / 1024:.0f} kB)")
