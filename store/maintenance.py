"""One maintenance pass: buffer flush, partitions ahead, compaction, rollups, retention.

Run by the Celery beat task `maintain` (every 60 s) and `manage.py store_maintain`.
A Redis lock keeps two workers from maintaining at the same time.
"""

from datetime import UTC, datetime, timedelta

from store import buffer, compaction, config, ingest, partitions, retention, rollup_days, statement_hours

LOCK = "steadystate:store:maintain-lock"


def run(now: datetime | None = None) -> dict:
    now = now or datetime.now(UTC)
    lock = buffer.client().lock(LOCK, timeout=600, blocking=False)
    if not lock.acquire():
        return {"skipped": "another worker is maintaining"}
    try:
        return {
            "flushed": ingest.flush_buffer(),
            "partitions_ahead": create_ahead(now),
            "compacted": compaction.compact_closed(now),
            "days_rolled_up": rollup_days.roll_closed(now),
            "statement_hours_rolled_up": statement_hours.roll_closed(now),
            "dropped": retention.apply(now),
        }
    finally:
        buffer.release(lock)


def create_ahead(now: datetime) -> int:
    """Partitions for the hours and days about to come, so ingest never waits on DDL."""
    ahead = now + timedelta(hours=config.hours_ahead())
    partitions.ensure_range(partitions.RAW, now - timedelta(hours=1), ahead)
    for scheme in (partitions.BLOCK, partitions.BLOCK_SERIES, partitions.ROLLUP_1M, partitions.ROLLUP_1H,
                   partitions.STATEMENT, partitions.STATEMENT_HOUR):
        partitions.ensure_range(scheme, now - timedelta(days=1), ahead)
    return sum(len(partitions.existing(s)) for s in partitions.ALL)
