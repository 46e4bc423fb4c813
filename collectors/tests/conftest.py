"""Fixtures of the collectors tests: servers pointing at the test MariaDB, and a write load."""

import pytest

from collectors import schedule
from collectors.pool import POOL
from monitor.models import Server

LOAD_DB = "collector_load"


@pytest.fixture
def make_server(db):
    def make(name: str, port: int, user: str = "steady", password: str = "s3cret!", **fields) -> Server:
        server = Server(name=name, host="127.0.0.1", port=port, user=user, **fields)
        server.password = password
        server.save()
        return server
    return make


@pytest.fixture
def server(make_server, mariadb) -> Server:
    return make_server("test-mariadb", mariadb.port)


@pytest.fixture(autouse=True)
def fresh_collector_state():
    """Connections and the due set belong to one test (server ids are never reused)."""
    yield
    POOL.close_all()
    schedule.reset()


class Load:
    """Writes on the test MariaDB from root, so the monitoring user's statements are not mixed in."""

    def __init__(self, mariadb):
        self.mariadb = mariadb
        mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {LOAD_DB}",
                        f"CREATE TABLE IF NOT EXISTS {LOAD_DB}.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"
                        " ENGINE=InnoDB")

    def transactions(self, commits: int, rollbacks: int = 0) -> None:
        conn = self.mariadb.connect()
        try:
            with conn.cursor() as cur:
                for i in range(commits + rollbacks):
                    cur.execute("BEGIN")
                    cur.execute(f"INSERT INTO {LOAD_DB}.t (v) VALUES (%s)", (i,))
                    cur.execute("COMMIT" if i < commits else "ROLLBACK")
        finally:
            conn.close()

    def updates(self, count: int) -> None:
        """Autocommit updates: each leaves an undo log for purge (history length)."""
        conn = self.mariadb.connect()
        try:
            with conn.cursor() as cur:
                for i in range(count):
                    cur.execute(f"UPDATE {LOAD_DB}.t SET v = v + 1 WHERE id = %s", (i % 5 + 1,))
        finally:
            conn.close()

    def status(self, *names: str) -> dict[str, int]:
        rows = self.mariadb.execute("SHOW GLOBAL STATUS WHERE Variable_name IN ({})".format(
            ", ".join(f"'{n}'" for n in names)))
        return {name: int(value) for name, value in rows}


@pytest.fixture
def load(mariadb) -> Load:
    return Load(mariadb)
