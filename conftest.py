"""Fixtures shared by every app's tests: real servers, started by the suite."""

import shutil
import tempfile
from pathlib import Path

import pytest

from monitor.testing.mariadb import SandboxMariaDB


@pytest.fixture(scope="session")
def mariadb():
    """A private MariaDB with performance_schema ON, and a monitoring user."""
    base = Path(tempfile.mkdtemp(prefix="steadystate-mariadb-"))
    server = SandboxMariaDB(base / "data")
    server.start()
    server.create_monitor_user()
    yield server
    server.stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def monitor_credentials(mariadb):
    return {"host": "127.0.0.1", "port": mariadb.port, "user": "steady", "password": "s3cret!"}
