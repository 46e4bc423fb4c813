"""Fixtures of the collectors tests: servers pointing at the test MariaDB, and a write load (testing.collectors)."""

import pytest

from collectors import schedule
from collectors.http_fetch import HTTP_POOL
from collectors.pool import POOL
from servers.models import Server
from testing.collectors import Load
from testing.servers import make_server as make_server_row


@pytest.fixture
def make_server(db):
    return make_server_row


@pytest.fixture
def server(make_server, mariadb) -> Server:
    return make_server("test-mariadb", mariadb.port)


@pytest.fixture(autouse=True)
def fresh_collector_state():
    """Connections and the due set belong to one test (server ids are never reused)."""
    yield
    POOL.close_all()
    HTTP_POOL.close_all()
    HTTP_POOL.refused.clear()
    schedule.reset()


@pytest.fixture
def load(mariadb) -> Load:
    return Load(mariadb)
