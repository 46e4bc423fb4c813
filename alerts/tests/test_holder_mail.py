"""Acceptance: a read view held by a known user and statement is named on the purge page and in the
history-length e-mails, and the resolved e-mail says when it ended (real MariaDB, real SMTP)."""

import time
from datetime import UTC

import pytest

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event
from collectors.batch import poll_server
from collectors.pool import POOL
from testing.alerts import WRITES, history_now, make_rule, until
from testing.servers import make_server

pytestmark = pytest.mark.django_db

DB = "holder_mail"
STATEMENT = f"SELECT v FROM {DB}.t WHERE id = 1 /* nightly report */"
SOURCES = ["history_length", "oldest_trx"]
TRX_CACHE = 0.15  # InnoDB refreshes what INNODB_TRX shows at most every 0.1 s
KEPT_AFTER = 2.1  # a holder worth naming is 2 s old (collectors.holders)


@pytest.fixture
def clients(mariadb):
    """A reporting user's connection (it will hold the read view) and a writer's."""
    mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {DB}",
                    f"CREATE TABLE IF NOT EXISTS {DB}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                    f"REPLACE INTO {DB}.t VALUES (1, 0)",
                    "CREATE USER IF NOT EXISTS 'reporter'@'%' IDENTIFIED BY 'rep0rt'",
                    f"GRANT SELECT ON {DB}.* TO 'reporter'@'%'")
    reader, writer = mariadb.connect(user="reporter", password="rep0rt"), mariadb.connect()
    yield reader, writer
    reader.close()
    writer.close()
    POOL.close_all()


def cycle(server_id: int) -> None:
    """The beat's work: a poll of both sources, an evaluation, the sender."""
    poll_server(server_id, only=SOURCES)
    evaluate_all()
    sending.send_due()


def hold_read_view(reader) -> int:
    with reader.cursor() as cur:
        cur.execute("SELECT CONNECTION_ID()")
        thread = cur.fetchone()[0]
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute(STATEMENT)
        cur.fetchall()
    return thread


def grow_history(writer) -> None:
    with writer.cursor() as cur:
        for _ in range(WRITES):
            cur.execute(f"UPDATE {DB}.t SET v = v + 1 WHERE id = 1")


def test_the_page_and_the_mails_name_who_holds_purge_back(mariadb, clients, inbox, admin_client):
    reader, writer = clients
    server = make_server("holder-mariadb", port=mariadb.port)
    poll_server(server.id, only=SOURCES)
    rule = make_rule(name="History above baseline", threshold=history_now(server.id) + WRITES // 2)
    thread, began = hold_read_view(reader), time.time()
    grow_history(writer)
    time.sleep(max(0.0, began + KEPT_AFTER - time.time()))  # a holder worth naming is 2 s old
    cycle(server.id)

    assert len(inbox.messages) == 1 and "FIRING" in inbox.subjects()[0]
    text, html = inbox.text(0), inbox.html(0)
    assert f"Oldest transaction: thread {thread}, reporter@127.0.0.1" in text
    assert f"Statement: {STATEMENT} (its last statement: idle in transaction)" in text
    assert "Open for 0:00:0" in text  # held a few seconds at most by now
    assert f"thread <b>{thread}</b>" in html and "reporter@127.0.0.1" in html

    page = admin_client.get(f"/servers/{server.id}/purge/?range=1h")
    assert page.status_code == 200
    body = page.content.decode()
    assert f"<td>{thread}</td><td>reporter@127.0.0.1" in body and STATEMENT in body
    assert "still open" in body

    reader.commit()  # the read view ends: the next poll no longer sees it, purge catches up
    time.sleep(TRX_CACHE)
    first_poll_after = poll_server(server.id, only=SOURCES)
    ended = next(s.sample.ts for s in first_poll_after.sources if s.name == "oldest_trx")
    until(lambda: cycle(server.id) is None and len(inbox.messages) == 2)
    assert "RESOLVED" in inbox.subjects()[1]
    resolved = inbox.text(1)
    assert f"Oldest transaction: thread {thread}, reporter@127.0.0.1" in resolved
    assert f"gone by {ended.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ} (UTC): held for" in resolved
    assert STATEMENT in resolved
    assert not Event.objects.get(rule=rule).firing
    body = admin_client.get(f"/servers/{server.id}/purge/?range=1h").content.decode()
    assert "still open" not in body and f"{ended.astimezone(UTC):%Y-%m-%d %H:%M:%S}" in body


CONSUMER = "UPDATE performance_schema.setup_consumers SET ENABLED = '{}' WHERE NAME = 'events_statements_current'"


def test_the_mail_says_why_the_statement_is_missing_when_the_consumer_is_off(mariadb, clients, inbox):
    reader, writer = clients
    server = make_server("holder-no-consumer", port=mariadb.port)
    poll_server(server.id, only=SOURCES)
    make_rule(name="History above baseline", threshold=history_now(server.id) + WRITES // 2)
    mariadb.execute(CONSUMER.format("NO"))  # as a default MariaDB has it
    try:
        hold_read_view(reader)
        grow_history(writer)
        time.sleep(KEPT_AFTER)
        cycle(server.id)
    finally:
        mariadb.execute(CONSUMER.format("YES"))
        reader.commit()
    text, html = inbox.text(0), inbox.html(0)
    assert STATEMENT not in text and "(none seen)" not in text
    said = ("Statement: none read: performance_schema consumer events_statements_current is off on this server, "
            "so it keeps no statements: run UPDATE performance_schema.setup_consumers SET ENABLED='YES' WHERE "
            "NAME IN ('events_statements_current')")
    assert said in text.replace("\r\n", "\n")
    assert "none read: performance_schema consumer events_statements_current is off" in html
