"""An idle transaction holding a read view on the suite's MariaDB: the purge page names its statement, or says why not.

A default MariaDB leaves performance_schema's events_statements_current consumer off, so the
holder's last statement is not kept; the page must say so with the statement that turns it on.
"""

import html
import time

import pytest

from collectors.batch import poll_server
from collectors.pool import POOL
from collectors.sources import oldest_trx
from collectors.weakened import consumers_fix
from testing.servers import make_server

pytestmark = pytest.mark.django_db

HOLD_DB = "held_views"
STATEMENT = f"SELECT v FROM {HOLD_DB}.t WHERE id = 1"
CONSUMER = "UPDATE performance_schema.setup_consumers SET ENABLED = '{}' WHERE NAME = 'events_statements_current'"


@pytest.fixture
def holder(mariadb):
    mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {HOLD_DB}",
                    f"CREATE TABLE IF NOT EXISTS {HOLD_DB}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                    f"REPLACE INTO {HOLD_DB}.t VALUES (1, 0)")
    conn = mariadb.connect()
    yield conn
    conn.close()
    mariadb.execute(CONSUMER.format("YES"))  # as the suite's sandbox starts it
    POOL.close_all()


def hold_idle(conn) -> None:
    """A read view opened, one statement run, then the session idles in its transaction."""
    with conn.cursor() as cur:
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute(STATEMENT)
        cur.fetchall()
    time.sleep(2.2)  # a holder worth keeping is 2 s old (collectors.holders)


def holders_table(client, server) -> str:
    page = client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    return html.unescape(page[page.index('id="holders"'):])


def test_the_purge_page_says_why_the_statement_is_missing_then_names_it(admin_client, mariadb, holder):
    server = make_server("held", mariadb.port)
    mariadb.execute(CONSUMER.format("NO"))
    hold_idle(holder)
    poll_server(server.id, only=[oldest_trx.NAME])
    table = holders_table(admin_client, server)
    assert STATEMENT not in table
    assert "events_statements_current is off on this server" in table
    assert consumers_fix(["events_statements_current"]) in table
    holder.commit()

    mariadb.execute(CONSUMER.format("YES"))
    hold_idle(holder)  # a new transaction: a new holder, its statement kept this time
    poll_server(server.id, only=[oldest_trx.NAME])
    holder.commit()
    table = holders_table(admin_client, server)
    newest = table[table.rindex("<tr>"):]
    assert STATEMENT in newest and "idle in transaction" in newest and "none read" not in newest
