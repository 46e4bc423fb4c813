"""The oldest_trx source on recorded MySQL 5.5 and 8.0 result sets, and its columns in every version."""

import re

import pytest

from collectors.sources import oldest_trx
from collectors.tests.recorded import RECORDED, RecordedConnection, mysql

LAST_SQL = "SELECT * FROM sales WHERE day >= '2024-02-01'"


def rows(name: str) -> list[tuple]:
    lines = (RECORDED / name).read_text().splitlines()
    return [tuple(None if cell == r"\N" else cell for cell in line.split("\t"))
            for line in lines if line and not line.startswith("#")]


def answers(name: str) -> tuple[list[tuple], list[tuple]]:
    """A recorded state as the two statements see it: INNODB_TRX rows, then the client threads' rows."""
    state = rows(name)
    trx = [(r[0], r[1], r[2], r[3], r[4], r[5], r[10]) for r in state]
    threads = [(r[0], r[6], r[7], r[8], r[9]) for r in state if r[0] != "0"]
    return trx, threads


def columns(version: str, table: str) -> set[str]:
    return next(set(cells[2].split()) for cells in rows("innodb-trx-columns.tsv")
                if cells[0] == version and cells[1] == table)


@pytest.mark.parametrize("version", ["mysql-5.5", "mysql-5.7", "mysql-8.0", "mysql-8.4", "mariadb-10.11"])
def test_every_innodb_trx_column_it_reads_exists_in(version):
    used = set(re.findall(r"\b(trx_\w+)", oldest_trx.TRX_SQL))
    assert len(used) == 6 and used <= columns(version, "INNODB_TRX")


@pytest.mark.parametrize("version, table, sql", [
    ("mysql-5.5", "PROCESSLIST", oldest_trx.IS_THREADS_SQL), ("mysql-8.4", "PROCESSLIST", oldest_trx.IS_THREADS_SQL),
    ("mysql-5.6", "threads", oldest_trx.PFS_THREADS_SQL), ("mysql-8.0", "threads", oldest_trx.PFS_THREADS_SQL),
    ("mariadb-10.11", "threads", oldest_trx.PFS_THREADS_SQL),
])
def test_every_thread_column_it_reads_exists_in(version, table, sql):
    used = set(re.findall(r"SELECT (.*) FROM", sql)[0].replace(",", " ").split())
    assert len(used) == 5 and used <= columns(version, table)


def test_it_reads_80_threads_through_performance_schema_and_counts_the_old_ones_beyond_the_limit():
    trx, threads = answers("mysql-8.0-oldest-trx.tsv")
    conn = RecordedConnection({"ORDER BY trx_started": trx, "performance_schema.threads WHERE": threads,
                               "COUNT(*) FROM information_schema.INNODB_TRX": [(12,)],
                               "events_statements_current": [(LAST_SQL,)]})
    reading = oldest_trx.collect(conn, mysql("8.0.36"))
    # Threads read: the holder's, and the READ COMMITTED one running a statement (its view's age).
    assert conn.executed[1].endswith("WHERE PROCESSLIST_ID IN (4711, 4800)")
    # 932 s the oldest; all ten rows read are past 60 s, so the server counted: 12.
    # Read views: the REPEATABLE READ report (932 s) and the running READ COMMITTED UPDATE (12 s).
    assert reading.values == {"trx_oldest_age_s": 932, "trx_older_60s": 12, "trx_read_view_age_s": 932}
    holder = reading.extra["holder"]
    assert (holder["thread_id"], holder["user"], holder["host"]) == (4711, "report", "10.0.0.7:51234")
    assert holder["statement"] == LAST_SQL and holder["idle"]


def test_it_reads_55_threads_through_information_schema_with_no_client_thread_to_name():
    trx, threads = answers("mysql-5.5-oldest-trx.tsv")
    conn = RecordedConnection({"ORDER BY trx_started": trx, "information_schema.PROCESSLIST": threads})
    reading = oldest_trx.collect(conn, mysql("5.5.62"))
    assert len(conn.executed) == 2 and conn.executed[1].endswith("PROCESSLIST WHERE ID IN (812)")
    assert reading.values == {"trx_oldest_age_s": 4000, "trx_older_60s": 1, "trx_read_view_age_s": 4000}
    holder = reading.extra["holder"]
    assert holder["thread_id"] == 0 and holder["user"] is None and holder["statement"] is None


def test_a_running_read_committed_statement_holds_a_view_for_its_own_time():
    trx, threads = answers("mysql-5.5-oldest-trx.tsv")
    conn = RecordedConnection({"ORDER BY trx_started": trx[1:], "information_schema.PROCESSLIST": threads})
    reading = oldest_trx.collect(conn, mysql("5.7.44", performance_schema=False))
    assert reading.values == {"trx_oldest_age_s": 45, "trx_older_60s": 0, "trx_read_view_age_s": 40}
    assert reading.extra["holder"]["statement"].startswith("SELECT COUNT(*) FROM orders")


def test_no_transaction_is_no_holder_and_zero_ages():
    conn = RecordedConnection({"ORDER BY trx_started": []})
    reading = oldest_trx.collect(conn, mysql("8.4.3"))
    assert len(conn.executed) == 1  # nothing open: one statement
    assert reading.values == {"trx_oldest_age_s": 0, "trx_older_60s": 0, "trx_read_view_age_s": 0}
    assert reading.extra["holder"] is None


def test_while_the_same_transaction_stays_the_oldest_its_identity_is_not_read_again():
    trx, threads = answers("mysql-8.0-oldest-trx.tsv")
    conn = RecordedConnection({"ORDER BY trx_started": trx[:1], "performance_schema.threads WHERE": threads[:1],
                               "events_statements_current": [(LAST_SQL,)]})
    first = oldest_trx.collect(conn, mysql("8.0.36"))
    assert len(conn.executed) == 3  # INNODB_TRX, the holder's thread, its last statement
    conn.answers["ORDER BY trx_started"] = [(*trx[0][:1], "990", *trx[0][2:])]  # a minute later
    again = oldest_trx.collect(conn, mysql("8.0.36"))
    assert len(conn.executed) == 4
    assert again.extra["holder"] == {**first.extra["holder"], "age_s": 990}


def test_an_idle_55_holder_is_not_said_to_need_performance_schema_turned_on():
    """MySQL 5.5's performance_schema has no statement events: ON or OFF, its last statement cannot be read."""
    trx, threads = answers("mysql-8.0-oldest-trx.tsv")  # the idle REPEATABLE READ report, its row shape as 5.5's
    conn = RecordedConnection({"ORDER BY trx_started": trx[:1], "information_schema.PROCESSLIST": threads[:1]})
    holder = oldest_trx.collect(conn, mysql("5.5.62", performance_schema=False)).extra["holder"]
    assert holder["statement"] is None and holder["thread_id"] == 4711
    assert holder["statement_missing"] == (
        "MySQL 5.5.62 has no performance_schema statement events (MySQL 5.6, MariaDB 10.0 and later have)")
