"""Fixtures of the dashboards tests (their data is in testing.dashboards)."""

import pytest

from testing.store import reset_caches


@pytest.fixture(autouse=True)
def fresh_store():
    """The store caches metric ids per process; tests roll the database back under it."""
    reset_caches()
    yield
    reset_caches()
