"""Fixtures of the store tests (the sample helpers are in testing.store)."""

import pytest

from testing.store import reset_caches


@pytest.fixture(autouse=True)
def fresh_store_caches():
    """Each test starts with empty process caches and an empty Redis buffer."""
    reset_caches()
    yield
    reset_caches()


@pytest.fixture
def store_tables_cleanup():
    """Transactional tests commit: empty the partitioned tables afterwards."""
    yield
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("TRUNCATE store_raw, store_block, store_block_series, store_rollup_1m, store_rollup_1h")
