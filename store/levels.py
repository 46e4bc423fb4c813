"""Which data answers a range: full resolution, 1-minute or 1-hour rollups."""

from collections.abc import Callable
from datetime import UTC, datetime

from store import config, partitions

FULL, MINUTE, HOUR = "full", "1m", "1h"


def available_since(level: str, now: datetime | None = None) -> datetime:
    """From when a level surely holds data: its retention, or its oldest partition if older."""
    now = now or datetime.now(UTC)
    schemes: tuple[partitions.Scheme, ...]
    if level == FULL:
        schemes, keep = (partitions.RAW, partitions.BLOCK), config.raw_retention()
    elif level == MINUTE:
        schemes, keep = (partitions.ROLLUP_1M,), config.rollup_1m_retention()
    else:
        return datetime.min.replace(tzinfo=UTC)
    starts = [start for start in (partitions.oldest(s) for s in schemes) if start is not None]
    return min([now - keep, *starts])


def finest(start: datetime) -> str:
    """The finest level that still holds data from `start` on: the polls, else the finest rollups."""
    return FULL if start >= available_since(FULL) else finest_rollup(start)


def finest_rollup(start: datetime) -> str:
    """The finest rollup level that still holds data from `start` on."""
    return MINUTE if start >= available_since(MINUTE) else HOUR


def choose(start: datetime, end: datetime, max_points: int) -> str:
    """The coarsest level still at least as fine as one point per max_points-th of the range."""
    return chooser()(start, end, max_points)


def chooser() -> Callable[[datetime, datetime, int], str]:
    """choose() for many ranges, each level's availability read once (it lists partitions)."""
    since: dict[str, datetime] = {}

    def pick(start: datetime, end: datetime, max_points: int) -> str:
        width = (end - start).total_seconds() / max(max_points, 1)
        for level, finer_than in ((FULL, 60), (MINUTE, 3600)):
            if width < finer_than:
                if level not in since:
                    since[level] = available_since(level)
                if start >= since[level]:
                    return level
        return HOUR
    return pick
