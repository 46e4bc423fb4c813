"""Wait instruments a server leaves off: said on the waits and stability pages, with the statement that turns them on.

The suite's MariaDB starts with every wait/synch instrument on (as docs/privileges.md asks); a default one
has all 288 off, and its waits rows silently leave every mutex and rwlock out.
"""

import html
import time
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from collectors.batch import poll_server
from collectors.pool import POOL
from collectors.sources import wait_instruments
from testing.servers import make_server

pytestmark = pytest.mark.django_db
WAIT_SOURCES = ["global_status", "pfs_waits", "wait_instruments"]
INSTRUMENTS = ("UPDATE performance_schema.setup_instruments SET ENABLED = '{}', TIMED = '{}'"
               " WHERE NAME LIKE 'wait/synch/mutex/innodb/%'")
OFF_SQL = ("SELECT COUNT(*), (SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%')"
           " FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%'"
           " AND NOT (ENABLED = 'YES' AND TIMED = 'YES')")


@pytest.fixture
def innodb_mutexes_off(mariadb):
    mariadb.execute(INSTRUMENTS.format("NO", "NO"))
    yield mariadb.execute(OFF_SQL)[0]
    mariadb.execute(INSTRUMENTS.format("YES", "YES"))
    POOL.close_all()


def pages(client, server, query: str = "range=15m") -> list[str]:
    return [html.unescape(client.get(f"/servers/{server.pk}/{page}/?{query}").content.decode())
            for page in ("waits", "stability")]


def around(*polled) -> str:
    """A range from a second before the first poll's read to a second after the last one's."""
    return urlencode({"from": (polled[0] - timedelta(seconds=1)).isoformat(),
                      "to": (polled[-1] + timedelta(seconds=1)).isoformat()})


def poll_time(server):
    outcome = next(s for s in poll_server(server.id, only=WAIT_SOURCES).sources if s.name == "wait_instruments")
    assert outcome.ok and outcome.sample is not None, outcome.error
    return outcome.sample.ts


def test_the_waits_pages_say_which_instruments_are_off(admin_client, mariadb, innodb_mutexes_off):
    off, total = innodb_mutexes_off
    assert 0 < off < total
    server = make_server("weak-waits", mariadb.port)
    poll_server(server.id, only=WAIT_SOURCES)
    for body in pages(admin_client, server):
        assert f"{off} of {total} wait/synch/% instruments (enabled and timed)" in body
        assert ("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME LIKE "
                "'wait/synch/%'") in body


def test_nothing_is_said_when_they_are_on(admin_client, mariadb):
    assert mariadb.execute(OFF_SQL)[0][0] == 0
    server = make_server("all-waits", mariadb.port)
    poll_server(server.id, only=WAIT_SOURCES)
    POOL.close_all()
    for body in pages(admin_client, server):
        assert "instruments (enabled and timed)" not in body and "waits-weakened" not in body


def test_the_note_is_a_fact_of_the_range_not_of_the_servers_latest_state(admin_client, mariadb, monkeypatch):
    monkeypatch.setattr(wait_instruments, "INSTRUMENTS_EVERY_S", 0)  # every poll reads the instruments
    server = make_server("weak-then-whole", mariadb.port)
    mariadb.execute(INSTRUMENTS.format("NO", "NO"))
    try:
        off, total = mariadb.execute(OFF_SQL)[0]
        weak = poll_time(server)
    finally:
        mariadb.execute(INSTRUMENTS.format("YES", "YES"))
    time.sleep(2.5)  # the two ranges do not overlap
    whole = poll_time(server)
    POOL.close_all()
    said = f"{off} of {total} wait/synch/% instruments (enabled and timed) off"
    for body in pages(admin_client, server, around(weak)):
        assert f"{said} in every poll of this range" in body
    for body in pages(admin_client, server, around(whole)):
        assert "instruments (enabled and timed)" not in body and "waits-weakened" not in body
    for body in pages(admin_client, server, around(weak, whole)):
        assert f"{said} in part of this range" in body
