"""Test support: the store caches metric ids and partitions per process, and
tests roll the database back under those caches."""

from store import buffer, catalog, partitions


def reset_caches() -> None:
    """Empty the process caches and the Redis buffer."""
    catalog.forget()
    partitions.forget()
    buffer.client().delete(buffer.KEY, buffer.INFLIGHT, buffer.GAPS)
