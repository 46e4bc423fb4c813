"""manage.py store_flush: write the samples buffered in Redis while PostgreSQL was unreachable."""

from django.core.management.base import BaseCommand

from store import ingest


class Command(BaseCommand):
    help = "Write the samples buffered in Redis (PostgreSQL outage) to PostgreSQL now."

    def handle(self, *args, **options):
        self.stdout.write(f"wrote {ingest.flush_buffer()} buffered sample(s)")
