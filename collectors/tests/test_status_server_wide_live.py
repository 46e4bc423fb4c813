"""Threads_running and Memory_used are the server's, in every poll, on the suite's MariaDB (10.5.2+).

MariaDB's performance_schema.global_status sums them over its instrumented threads (Threads_running 0
under any load, Memory_used ~1/500 of the server's): the collector must store what SHOW GLOBAL STATUS
says. The test counts its own sleeping sessions and reads SHOW GLOBAL STATUS itself around each poll.
"""

import contextlib
import threading
import time

import pymysql
import pytest

from collectors.batch import poll_server
from collectors.sources import global_status
from store import query
from testing.collectors import values_of

SLEEPERS = 4
SLEEP_S = 600  # ended by KILL QUERY on leaving: a slow machine may take seconds to show every session running
START_S = 60  # the longest the sessions may take to show in the process list
TOLERANCE = 0.05
# global_status alone reads with its own statement; beside pfs_waits, within the poll's shared one.
PATHS = {"alone": ["global_status"], "shared": ["global_status", "pfs_waits"]}


class Sleepers:
    """SLEEPERS sessions each running SELECT SLEEP(SLEEP_S) from entering to leaving, when their queries are killed.

    Sleeps of 3 s that ended by themselves hung a loaded CI run: the first ended before the last showed in the
    process list, and the wait for all four to show never ended."""

    def __init__(self, mariadb):
        self.conns = [mariadb.connect() for _ in range(SLEEPERS)]
        self.threads = [threading.Thread(target=self.sleep, args=(c,)) for c in self.conns]
        self.ids = {c.thread_id() for c in self.conns}
        self.mariadb = mariadb

    def sleep(self, conn) -> None:
        with conn.cursor() as cur, contextlib.suppress(pymysql.err.OperationalError):  # 1317: killed on leaving
            cur.execute(f"SELECT SLEEP({SLEEP_S})")

    def __enter__(self) -> "Sleepers":
        for thread in self.threads:
            thread.start()
        deadline = time.monotonic() + START_S
        while not self.all_running():
            if time.monotonic() > deadline:
                self.__exit__()
                raise AssertionError(f"the {SLEEPERS} sleeping sessions did not all show running in {START_S} s")
            time.sleep(0.05)
        return self

    def all_running(self) -> bool:
        rows = self.mariadb.execute("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP%'")
        return self.ids <= {int(row[0]) for row in rows}

    def __exit__(self, *exc) -> None:
        self.mariadb.execute(*(f"KILL QUERY {i}" for i in self.ids))
        for thread in self.threads:
            thread.join()
        for conn in self.conns:
            conn.close()


def memory_used(mariadb) -> int:
    return int(mariadb.execute("SHOW GLOBAL STATUS LIKE 'Memory_used'")[0][1])


@pytest.mark.parametrize("path", PATHS)
def test_every_poll_stores_the_servers_threads_running_and_memory_used(server, mariadb, monkeypatch, path):
    monkeypatch.setattr(global_status, "SPELLING", {})  # the first poll of a process, which reads SHOW as well
    for poll in ("first", "second", "third"):
        with Sleepers(mariadb):
            before = memory_used(mariadb)
            values = values_of(poll_server(server.id, only=PATHS[path]), "global_status")
            after = memory_used(mariadb)
        assert values["Threads_running"] >= SLEEPERS, poll
        low, high = min(before, after), max(before, after)
        assert low * (1 - TOLERANCE) <= values["Memory_used"] <= high * (1 + TOLERANCE), (poll, before, after)
        stored = query.latest([server.id], ["Threads_running", "Memory_used"])
        assert {name: value for (_, name), (_, value) in stored.items()} == {
            "Threads_running": values["Threads_running"], "Memory_used": values["Memory_used"]}
