"""`manage.py load FILE --as NAME`: a collection file's readings stored as a server's series, as if polled."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from collectors import collect_file
from collectors.file_arg import read_file_arg
from collectors.replay import LoadError, load


class Command(BaseCommand):
    help = ("Load a file written by `manage.py collect` as the server NAME (created, not polled here): its readings "
            "go through the same delta engine as a poll's; loading it again stores nothing new (docs/collect.md).")

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the collection file")
        parser.add_argument("--as", dest="name", required=True, metavar="NAME", help="the server's name here")
        parser.add_argument("--partial", action="store_true",
                            help="a file cut inside its last record: load the complete records before the cut")

    def handle(self, *args, **options):
        path = Path(options["file"])
        data = read_file_arg(path)
        try:
            report = load(data, options["name"], str(path), options["partial"])
        except (LoadError, collect_file.CollectionFileError) as exc:
            raise CommandError(str(exc)) from None
        for line in report.lines():
            self.stdout.write(line)
