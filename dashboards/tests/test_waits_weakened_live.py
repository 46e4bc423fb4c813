"""Wait instruments a server leaves off: said on the waits and stability pages, with the statement that turns them on.

The suite's MariaDB starts with every wait/synch instrument on (as docs/privileges.md asks); a default one
has all 288 off, and its waits rows silently leave every mutex and rwlock out.
"""

import html

import pytest

from collectors.batch import poll_server
from collectors.pool import POOL
from testing.servers import make_server

pytestmark = pytest.mark.django_db
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


def pages(client, server) -> list[str]:
    return [html.unescape(client.get(f"/servers/{server.pk}/{page}/?range=15m").content.decode())
            for page in ("waits", "stability")]


def test_the_waits_pages_say_which_instruments_are_off(admin_client, mariadb, innodb_mutexes_off):
    off, total = innodb_mutexes_off
    assert 0 < off < total
    server = make_server("weak-waits", mariadb.port)
    poll_server(server.id, only=["global_status", "pfs_waits"])
    for body in pages(admin_client, server):
        assert f"{off} of {total} wait/synch/% instruments (enabled and timed)" in body
        assert ("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME LIKE "
                "'wait/synch/%'") in body


def test_nothing_is_said_when_they_are_on(admin_client, mariadb):
    assert mariadb.execute(OFF_SQL)[0][0] == 0
    server = make_server("all-waits", mariadb.port)
    poll_server(server.id, only=["global_status", "pfs_waits"])
    POOL.close_all()
    for body in pages(admin_client, server):
        assert "instruments (enabled and timed)" not in body and "waits-weakened" not in body
