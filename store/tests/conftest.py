"""Fixtures of the store tests (the sample helpers are in testing.store)."""

import pytest

from testing.store import reset_caches, truncate_tables


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
    truncate_tables()
