"""manage.py store_maintain: one maintenance pass (what the Celery beat task runs every minute)."""

from django.core.management.base import BaseCommand

from store import maintenance


class Command(BaseCommand):
    help = "Flush the store buffer, create partitions ahead, compact closed hours, roll up, apply retention."

    def handle(self, *args, **options):
        report = maintenance.run()
        for key, value in report.items():
            shown = len(value) if isinstance(value, list) else value
            self.stdout.write(f"{key}: {shown}")
