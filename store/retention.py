"""Retention: DROP whole partitions older than each resolution's limit (never DELETE).

Limits (store.config): full resolution 14 days, 1-minute rollups
90 days, 1-hour rollups 2 years by default. A partition goes only when its
whole range is older than the limit, so nothing younger is ever lost.
"""

from datetime import datetime, timedelta

from store import config, partitions

# Hot hours emptied by compaction are kept a day (late samples land there), then dropped.
EMPTY_HOT_KEPT = timedelta(days=1)


def apply(now: datetime) -> list[str]:
    """Drop expired partitions; return their names."""
    dropped = []
    raw_cut = now - config.raw_retention()
    for scheme in (partitions.BLOCK, partitions.BLOCK_SERIES, partitions.RAW):
        dropped += partitions.drop_older_than(scheme, raw_cut)
    dropped += partitions.drop_older_than(partitions.ROLLUP_1M, now - config.rollup_1m_retention())
    dropped += partitions.drop_older_than(partitions.ROLLUP_1H, now - config.rollup_1h_retention())
    dropped += _drop_empty_hot(now - EMPTY_HOT_KEPT)
    return dropped


def _drop_empty_hot(cutoff: datetime) -> list[str]:
    dropped = []
    for name in partitions.existing(partitions.RAW):
        if partitions.RAW.next(partitions.RAW.start_of(name)) <= cutoff and not partitions.has_rows(name):
            partitions.drop(name)
            dropped.append(name)
    return dropped

