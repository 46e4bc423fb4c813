"""manage.py store_retention: drop the partitions older than the retention limits."""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand

from store import config, retention


class Command(BaseCommand):
    help = (
        "Drop store partitions older than STORE_RAW_RETENTION_DAYS / STORE_ROLLUP_1M_RETENTION_DAYS "
        "/ STORE_ROLLUP_1H_RETENTION_DAYS."
    )

    def handle(self, *args, **options):
        self.stdout.write(
            f"limits: full resolution {config.raw_retention().days} d, 1-minute rollups "
            f"{config.rollup_1m_retention().days} d, 1-hour rollups {config.rollup_1h_retention().days} d"
        )
        dropped = retention.apply(datetime.now(UTC))
        self.stdout.write(f"dropped {len(dropped)} partition(s)" + (f": {', '.join(dropped)}" if dropped else ""))
