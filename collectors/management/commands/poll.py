"""`manage.py poll NAME`: poll one server now and print what each source got."""

from django.core.management.base import BaseCommand, CommandError

from collectors import registry
from collectors.batch import poll_server
from collectors.pool import POOL, Target
from servers.models import Server

SHOWN_VALUES = 8  # per source; --all prints everything


class Command(BaseCommand):
    help = "Poll a server once now (all its sources, or --source ones) and print what each source read."

    def add_arguments(self, parser):
        parser.add_argument("name", help="the server's name")
        sources = "; ".join(f"{s.name}: {s.help}" for s in registry.all_sources())
        parser.add_argument("--source", action="append", choices=list(registry.SOURCES),
                            help=f"only this source (repeatable); default: every source ({sources})")
        parser.add_argument("--all", action="store_true", help="print every value, not the first few")

    def handle(self, *args, **options):
        try:
            server = Server.objects.get(name=options["name"])
        except Server.DoesNotExist:
            raise CommandError(f"no server named {options['name']!r} (see /servers/ or manage.py addserver)") from None
        target = Target.from_server(server)  # the sources this server has (node_exporter: with a URL)
        only = options["source"] or [s.name for s in registry.all_sources() if s.configured(target)]
        try:
            result = poll_server(server.id, only=only)
        finally:
            POOL.close_all()  # one poll and done: no connection left for the server to abort
        self.print_result(result, options["all"])
        if not result.ok:
            raise CommandError(f"{server.name}: poll failed: {result.error}")

    def print_result(self, result, show_all: bool) -> None:
        w = self.stdout.write
        if result.skipped:
            w(f"{result.server_name}: not polled: {result.skipped}")
            return
        label = result.info.label if result.info else "not connected"
        w(f"{result.server_name} ({label}) polled in {result.duration_ms:.1f} ms")
        for source in result.sources:
            self.print_source(source, show_all)

    def print_source(self, source, show_all: bool) -> None:
        w = self.stdout.write
        if not source.ok:
            kind = "UNAVAILABLE" if source.unavailable else "ERROR"
            w(f"  {source.name}: {kind} ({source.duration_ms:.1f} ms): {source.error}")
            return
        values = source.sample.values if source.sample else {}
        counters = source.sample.counters if source.sample else frozenset()
        extra = f"; {source.reset}" if source.reset else ""
        w(f"  {source.name}: ok ({source.duration_ms:.1f} ms), {len(values)} values{extra}")
        if source.note:
            w(f"    note: {source.note}")
        for name in sorted(values)[: None if show_all else SHOWN_VALUES]:
            w(f"    {name} = {values[name]}{' (delta)' if name in counters else ''}")
        if not show_all and len(values) > SHOWN_VALUES:
            w(f"    ... {len(values) - SHOWN_VALUES} more (--all)")
