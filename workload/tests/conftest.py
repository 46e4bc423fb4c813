"""Fixtures of the workload tests: a stress user on the suite's MariaDB, a private temp dir."""

import shutil
import tempfile
from pathlib import Path

import pytest

from servers.models import Server
from testing.servers import PASSWORD
from testing.workload import STRESS_PASSWORD, STRESS_USER
from testing.workload import stall_target as stall_user
from workload.target import Target


@pytest.fixture(scope="session")
def stress_target(mariadb) -> Target:
    """A user that may write only the driver's own schema, as docs/walkthrough-find-what-limits-tps.md says."""
    mariadb.execute(
        f"CREATE USER IF NOT EXISTS '{STRESS_USER}'@'%' IDENTIFIED BY '{STRESS_PASSWORD}'",
        f"GRANT ALL ON steadystate_stress.* TO '{STRESS_USER}'@'%'",
    )
    return Target(name="test", user=STRESS_USER, password=STRESS_PASSWORD, host="127.0.0.1", port=mariadb.port)


@pytest.fixture(scope="session")
def stall_target(mariadb) -> Target:
    """A stress user that may also take the global read lock (RELOAD), as --stall-every needs."""
    return stall_user(mariadb)


@pytest.fixture
def private_dir():
    """A temp dir of our own: pytest's tmp_path base is pruned by other pytest runs of the same user."""
    path = Path(tempfile.mkdtemp(prefix="steadystate-workload-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def server(mariadb):
    """The suite's MariaDB registered as 'bench' with its monitoring user."""
    server = Server(name="bench", host="127.0.0.1", port=mariadb.port, user="steady")
    server.password = PASSWORD
    server.save()
    return server


@pytest.fixture
def write_user(monkeypatch, stress_target) -> list[str]:
    """The stress command's options for the user that may write the driver's schema."""
    monkeypatch.setenv("STRESS_PW", STRESS_PASSWORD)
    return ["--user", STRESS_USER, "--password-env", "STRESS_PW"]
