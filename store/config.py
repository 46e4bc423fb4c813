"""Store settings: the STORE_* Django settings (read from the environment in monitor/settings.py)."""

from datetime import timedelta

from django.conf import settings


def _setting(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def raw_retention() -> timedelta:
    """Full-resolution data (hot rows and compacted hours)."""
    return timedelta(days=_setting("STORE_RAW_RETENTION_DAYS", 14))


def rollup_1m_retention() -> timedelta:
    return timedelta(days=_setting("STORE_ROLLUP_1M_RETENTION_DAYS", 90))


def rollup_1h_retention() -> timedelta:
    return timedelta(days=_setting("STORE_ROLLUP_1H_RETENTION_DAYS", 730))


def statements_retention() -> timedelta:
    """Statement digests' per-interval rows (store.statements)."""
    return timedelta(days=_setting("STORE_STATEMENTS_RETENTION_DAYS", 14))


def buffer_max_samples() -> int:
    """Bound of the Redis buffer used while PostgreSQL is unreachable."""
    return _setting("STORE_BUFFER_MAX_SAMPLES", 100_000)


def compact_grace() -> timedelta:
    """How long after its end an hour is considered closed and gets compacted."""
    return timedelta(seconds=_setting("STORE_COMPACT_GRACE_SECONDS", 300))


def hours_ahead() -> int:
    """Hot partitions created ahead of time by maintain."""
    return _setting("STORE_PARTITIONS_AHEAD_HOURS", 6)
