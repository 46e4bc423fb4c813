"""manage.py store_compact: compact the closed hot hours now (with their rollups)."""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand

from store import compaction


class Command(BaseCommand):
    help = "Compact every closed hour of hot rows into per-metric blocks and write its 1-minute/1-hour rollups."

    def handle(self, *args, **options):
        done = compaction.compact_closed(datetime.now(UTC))
        self.stdout.write(f"compacted {len(done)} hour(s)" + (f": {', '.join(done)}" if done else ""))
