"""The oldest transaction on the test MariaDB: ages, the read view, and its holder kept as events."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from collectors.batch import poll_server
from collectors.connection import detect
from collectors.models import TrxHolder
from collectors.pruning import KEEP_HOLDERS, prune_holders
from collectors.source import SourceUnavailable
from collectors.sources import oldest_trx, replication

HOLD_DB = "trx_holders"
STATEMENT = f"SELECT v FROM {HOLD_DB}.t WHERE id = 1"
TRX_CACHE = 0.15  # InnoDB refreshes the INNODB_TRX table at most every 0.1 s
KEPT_AFTER = 2.1  # a transaction becomes a holder worth an event once 2 s old (collectors.holders)


@pytest.fixture
def holder(mariadb):
    """A client of its own (user 'holder') that can hold a transaction open."""
    mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {HOLD_DB}",
                    f"CREATE TABLE IF NOT EXISTS {HOLD_DB}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                    f"REPLACE INTO {HOLD_DB}.t VALUES (1, 0)",
                    "CREATE USER IF NOT EXISTS 'holder'@'%' IDENTIFIED BY 'h0lder'",
                    f"GRANT SELECT, UPDATE ON {HOLD_DB}.* TO 'holder'@'%'")
    conn = mariadb.connect(user="holder", password="h0lder")
    yield conn
    conn.close()


def begin(conn, isolation: str = "REPEATABLE READ") -> tuple[int, float]:
    """Open a transaction that has run STATEMENT; its thread id and when it began."""
    with conn.cursor() as cur:
        cur.execute(f"SET SESSION TRANSACTION ISOLATION LEVEL {isolation}")
        cur.execute("SELECT CONNECTION_ID()")
        thread = cur.fetchone()[0]
        began = time.time()
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT" if isolation == "REPEATABLE READ" else "BEGIN")
        cur.execute(STATEMENT)
        cur.fetchall()
    return thread, began


def values(result) -> dict:
    outcome = next(s for s in result.sources if s.name == oldest_trx.NAME)
    assert outcome.ok, outcome.error
    return outcome.sample.values


def test_it_measures_the_held_read_view_and_names_its_holder(server, holder):
    thread, began = begin(holder)
    time.sleep(2.2)
    result = poll_server(server.id, only=[oldest_trx.NAME])
    elapsed = result.started_at.timestamp() - began
    got = values(result)
    # TIMESTAMPDIFF counts whole seconds between two whole-second times: within a second of the clock.
    assert elapsed - 1.5 <= got["trx_oldest_age_s"] <= elapsed + 1.5
    assert got["trx_read_view_age_s"] == got["trx_oldest_age_s"]  # REPEATABLE READ: the view lives as long
    assert got["trx_older_60s"] == 0
    row = TrxHolder.objects.get(server=server, ended_at=None)
    assert (row.thread_id, row.user, row.host.split(":")[0]) == (thread, "holder", "127.0.0.1")
    assert row.statement == STATEMENT and row.idle  # the last statement, read from performance_schema
    assert abs(row.started_at.timestamp() - began) <= 1.5

    poll_server(server.id, only=[oldest_trx.NAME])
    assert TrxHolder.objects.filter(server=server).count() == 1  # the same holder, seen again
    holder.commit()
    time.sleep(TRX_CACHE)
    ended = poll_server(server.id, only=[oldest_trx.NAME])
    row.refresh_from_db()
    assert row.ended_at == ended.sources[0].sample.ts
    assert values(ended)["trx_oldest_age_s"] == 0


def test_it_reads_the_same_within_the_polls_shared_statement(server, holder, mariadb):
    poll_server(server.id, only=SHARING)  # connected, baselines
    thread, began = begin(holder)
    time.sleep(2.2)
    before = user_statements(mariadb)
    result = poll_server(server.id, only=SHARING)
    statements = user_statements(mariadb) - before
    elapsed = result.started_at.timestamp() - began
    got = values(result)
    assert elapsed - 1.5 <= got["trx_oldest_age_s"] <= elapsed + 1.5
    assert got["trx_read_view_age_s"] == got["trx_oldest_age_s"] and got["trx_older_60s"] == 0
    row = TrxHolder.objects.get(server=server, ended_at=None)
    assert (row.thread_id, row.user, row.statement, row.idle) == (thread, "holder", STATEMENT, True)
    assert statements == 3  # the shared statement, then the new holder's thread and last statement


SHARING = ["global_status", "pfs_waits", oldest_trx.NAME]


def user_statements(mariadb) -> int:
    return int(mariadb.execute("SELECT SUM(COUNT_STAR) FROM performance_schema."
                               "events_statements_summary_by_user_by_event_name WHERE USER = 'steady'")[0][0])


def test_a_read_committed_transaction_holds_no_view_between_statements(server, holder):
    begin(holder, "READ COMMITTED")
    time.sleep(1.2)
    got = values(poll_server(server.id, only=[oldest_trx.NAME]))
    holder.commit()
    assert got["trx_oldest_age_s"] >= 1 and got["trx_read_view_age_s"] == 0


def test_a_new_oldest_transaction_ends_the_previous_holder(server, holder, mariadb):
    first, _ = begin(holder)
    time.sleep(KEPT_AFTER)
    poll_server(server.id, only=[oldest_trx.NAME])
    holder.commit()
    second, _ = begin(holder)  # a second later: trx_started (whole seconds) tells it from the first
    time.sleep(KEPT_AFTER)
    poll_server(server.id, only=[oldest_trx.NAME])
    holder.commit()
    rows = list(TrxHolder.objects.filter(server=server))
    assert [r.thread_id for r in rows] == [first, second] and first == second  # same thread, new transaction
    assert rows[0].ended_at is not None and rows[1].ended_at is None


def test_without_process_it_says_what_is_missing(mariadb):
    mariadb.execute("CREATE USER IF NOT EXISTS 'noprocess'@'%' IDENTIFIED BY 'np'")
    conn = mariadb.connect(user="noprocess", password="np")
    try:
        with pytest.raises(SourceUnavailable, match="PROCESS privilege"):
            oldest_trx.collect(conn, detect(conn))
        # The replication source, on the same user: MariaDB 10.5.9+ wants SLAVE MONITOR.
        with pytest.raises(SourceUnavailable, match="GRANT SLAVE MONITOR ON"):
            replication.collect(conn, detect(conn))
    finally:
        conn.close()


def test_the_poll_keeps_going_when_it_cannot_connect_to_the_holders_server(make_server):
    server = make_server("nowhere", 1)
    result = poll_server(server.id, only=[oldest_trx.NAME])
    assert not result.ok and not TrxHolder.objects.filter(server=server).exists()



def test_process_alone_is_enough_to_name_the_holder(server, holder, mariadb, make_server):
    mariadb.execute("CREATE USER IF NOT EXISTS 'onlyprocess'@'%' IDENTIFIED BY 'op'",
                    "GRANT PROCESS ON *.* TO 'onlyprocess'@'%'")
    thread, _ = begin(holder)
    time.sleep(KEPT_AFTER)
    plain = make_server("process-only", mariadb.port, user="onlyprocess", password="op")
    result = poll_server(plain.id, only=[oldest_trx.NAME])
    holder.commit()
    assert values(result)["trx_oldest_age_s"] >= 0
    row = TrxHolder.objects.get(server=plain)
    # Threads from information_schema.PROCESSLIST; no performance_schema, so no last statement.
    assert (row.thread_id, row.user, row.statement) == (thread, "holder", "")


def test_short_transactions_caught_across_a_second_are_no_holders_and_the_long_one_is(server, holder, mariadb):
    """Transactions of 0.3 s, each read by a poll in the second after it began (1 s old by the whole-second
    clock), then one held over three polls: only the long one is a row."""
    load = mariadb.connect(user="holder", password="h0lder")
    try:
        for _ in range(3):
            time.sleep((1.8 - time.time() % 1) % 1)  # begin at x.8: the poll at x+1.05 reads it 1 s old
            begin(load)
            time.sleep(0.25)
            assert values(poll_server(server.id, only=[oldest_trx.NAME]))["trx_oldest_age_s"] == 1
            load.commit()
    finally:
        load.close()
    thread, began = begin(holder)
    for _ in range(3):
        time.sleep(1.1)
        poll_server(server.id, only=[oldest_trx.NAME])
    holder.commit()
    rows = list(TrxHolder.objects.filter(server=server))
    assert [r.thread_id for r in rows] == [thread]
    assert abs(rows[0].started_at.timestamp() - began) <= 1.0


def test_a_transaction_younger_than_a_second_is_no_holder(server, holder):
    time.sleep(1.02 - time.time() % 1)  # just after a second starts: the poll comes within the same second
    begin(holder)
    time.sleep(TRX_CACHE)
    got = values(poll_server(server.id, only=[oldest_trx.NAME]))
    holder.commit()
    assert got["trx_oldest_age_s"] == 0 and not TrxHolder.objects.filter(server=server).exists()


def test_ended_holders_are_forgotten_after_the_keep_time_and_open_ones_never(make_server):
    server, now = make_server("pruned", 1), timezone.now()
    old = now - KEEP_HOLDERS - timedelta(hours=1)
    rows = dict(server=server, thread_id=1, user="u", started_at=old, seen_at=old)
    TrxHolder.objects.create(trx_key="ended-long-ago", ended_at=old, **rows)
    TrxHolder.objects.create(trx_key="ended-lately", ended_at=now - KEEP_HOLDERS + timedelta(hours=1), **rows)
    TrxHolder.objects.create(trx_key="still-open", **rows)
    assert prune_holders(now) == 1
    assert sorted(TrxHolder.objects.values_list("trx_key", flat=True)) == ["ended-lately", "still-open"]
