"""Retention: DROP whole partitions older than each resolution's limit (never DELETE).

Limits (store.config): full resolution 14 days, 1-minute rollups
90 days, 1-hour rollups 2 years by default. A partition goes only when its
whole range is older than the limit, so nothing younger is ever lost.
"""

from datetime import datetime, timedelta

from django.db import connection

from store import config, partitions

# Hot hours emptied by compaction are kept a day (late samples land there), then dropped.
EMPTY_HOT_KEPT = timedelta(days=1)
# A pending day whose 1-minute rollups were dropped reads differently now: a new version, so no
# reader keeps serving the hour buckets it derived from them (store.pending_hours).
TOUCH_PENDING = "UPDATE store_pendingday SET version = nextval('store_pendingday_version') WHERE day < %s"


def apply(now: datetime) -> list[str]:
    """Drop expired partitions; return their names."""
    dropped = []
    raw_cut = now - config.raw_retention()
    for scheme in (partitions.BLOCK, partitions.BLOCK_SERIES, partitions.RAW):
        dropped += partitions.drop_older_than(scheme, raw_cut)
    minutes = partitions.drop_older_than(partitions.ROLLUP_1M, now - config.rollup_1m_retention())
    if minutes:
        _touch_pending(now - config.rollup_1m_retention())
    dropped += minutes
    dropped += partitions.drop_older_than(partitions.ROLLUP_1H, now - config.rollup_1h_retention())
    dropped += partitions.drop_older_than(partitions.STATEMENT, now - config.statements_retention())
    dropped += partitions.drop_older_than(partitions.STATEMENT_HOUR, now - config.statements_retention())
    dropped += _drop_empty_hot(now - EMPTY_HOT_KEPT)
    return dropped


def _touch_pending(cut: datetime) -> None:
    with connection.cursor() as cur:
        cur.execute(TOUCH_PENDING, [cut])


def _drop_empty_hot(cutoff: datetime) -> list[str]:
    dropped = []
    for name in partitions.existing(partitions.RAW):
        if partitions.RAW.next(partitions.RAW.start_of(name)) <= cutoff and not partitions.has_rows(name):
            partitions.drop(name)
            dropped.append(name)
    return dropped

