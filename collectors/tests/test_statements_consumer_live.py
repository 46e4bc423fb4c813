"""The statements_digest consumer and a statement instrument switched off on the suite's MariaDB: every digest read
stores what it found off, and the Statements tab says so for the ranges whose reads saw it."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification
from collectors.batch import poll_server
from collectors.results import SourceResult
from collectors.sources.statements import CONSUMER_FIX
from dashboards.figures.common import iso
from store import query
from testing.alerts import source_rule

CONSUMER = "statements.consumer_off:statements_digest"
SELECT = "statement/sql/select"


def poll(server, status: str = "ok") -> SourceResult:
    result = poll_server(server.id, only=["statements"])
    found = next(s for s in result.sources if s.name == "statements")
    assert found.status == status, found.error
    return found


def run(conn, sql: str) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def statements_page(client, server, start: datetime, end: datetime) -> str:
    return client.get(f"/servers/{server.pk}/statements/", {"from": iso(start)[:23], "to": iso(end)[:23]}
                      ).content.decode()


def test_a_consumer_switched_off_is_said_for_part_or_all_of_a_range(server, mariadb, admin_client):
    conn = mariadb.connect()
    instruments = run(conn, "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments"
                            " WHERE NAME LIKE 'statement/%'")
    off_before = sum(1 for _, enabled, timed in instruments if (enabled, timed) != ("YES", "YES"))
    assert dict((n, (e, t)) for n, e, t in instruments)[SELECT] == ("YES", "YES")
    since = datetime.now(UTC)
    try:
        poll(server)  # the baseline, consumer on
        run(conn, "SELECT 1 FROM DUAL WHERE 1 = 1")
        time.sleep(1.1)  # LAST_SEEN has whole seconds
        poll(server)
        switched = datetime.now(UTC)
        run(conn, "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME = 'statements_digest'")
        run(conn, f"UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = '{SELECT}'")
        run(conn, "SELECT 2 FROM DUAL WHERE 2 = 2")
        poll(server, "off")  # the digests read before stay: stored, and the source said off (which alerts)
        poll(server, "off")
    finally:
        run(conn, "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest'")
        run(conn, f"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = '{SELECT}'")
        conn.close()
    end = datetime.now(UTC) + timedelta(seconds=1)
    stored = {s.metric: [v for v in s.values if v is not None] for s in query.series(  # None: a break between reads
        [server.id], [CONSUMER, "statements.instruments_off", "statements.instruments"], since, end)}
    assert stored[CONSUMER] == [0, 0, 1, 1]  # the two reads after the switch found it off
    assert stored["statements.instruments_off"] == [off_before] * 2 + [off_before + 1] * 2
    assert stored["statements.instruments"] == [len(instruments)] * 4

    body = statements_page(admin_client, server, since, end)
    assert "the performance_schema consumer statements_digest off in part of this range" in body
    assert f"{off_before + 1} of {len(instruments)} statement/% instruments (enabled and timed) off in part" in body
    after = statements_page(admin_client, server, switched + timedelta(milliseconds=1), end)
    assert "statements_digest off in every read of this range" in after
    assert "WHERE NAME IN (&#x27;global_instrumentation&#x27;, &#x27;statements_digest&#x27;)" in after
    assert "may be off" not in after
    before = statements_page(admin_client, server, since, switched)
    assert "statements-weakened" not in before


def test_a_range_with_no_read_says_so_without_an_empty_sentence(server, admin_client):
    start = datetime.now(UTC) - timedelta(hours=2)
    body = statements_page(admin_client, server, start, start + timedelta(minutes=5))
    assert "ended in the range: no read that recorded a statement ended in it." in body
    assert "Per transaction" not in body and "over the" not in body


CONSUMER_OFF_SQL = "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME = 'statements_digest'"
CONSUMER_ON_SQL = "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest'"


@pytest.fixture
def conn(mariadb):
    conn = mariadb.connect()
    yield conn
    run(conn, CONSUMER_ON_SQL)
    conn.close()


def test_the_consumer_turned_off_after_the_source_ran_fires_the_source_alert_naming_the_fix(server, conn):
    rule = source_rule()
    poll(server)  # the baseline: the table holds digests (the suite's own statements), consumer on
    poll(server)
    evaluate_all(datetime.now(UTC))
    assert not Event.objects.filter(rule=rule).exists()

    run(conn, CONSUMER_OFF_SQL)
    off = poll(server, "off")
    said = (f"{server.name}: statements: the performance_schema consumer(s) statements_digest are off, so the digest "
            f"table stops counting; run: {CONSUMER_FIX} (and set them in my.cnf to keep them after a restart: "
            "performance-schema-consumer-statements-digest=ON)")
    assert off.error == said and off.sample is not None  # its gauges still stored: the page says it for the range
    assert off.sample.values["statements.consumer_off:statements_digest"] == 1
    evaluate_all(datetime.now(UTC))
    assert [(e.key, e.firing) for e in Event.objects.filter(rule=rule)] == [("statements", True)]
    mail = Notification.objects.get(event__rule=rule)
    assert mail.context["detail"] == f"{server.name}: source statements failing: {said}"

    run(conn, CONSUMER_ON_SQL)
    poll(server)
    evaluate_all(datetime.now(UTC))
    assert [(e.key, e.firing) for e in Event.objects.filter(rule=rule)] == [("statements", False)]
