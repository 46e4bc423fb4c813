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


def columns(version: str, table: str) -> set[str]:
    return next(set(cells[2].split()) for cells in rows("innodb-trx-columns.tsv")
                if cells[0] == version and cells[1] == table)


@pytest.mark.parametrize("version", ["mysql-5.5", "mysql-5.7", "mysql-8.0", "mysql-8.4", "mariadb-10.11"])
def test_every_innodb_trx_column_it_reads_exists_in(version):
    used = set(re.findall(r"\bt\.(\w+)", oldest_trx.TRX_SQL))
    assert used and used <= columns(version, "INNODB_TRX")


@pytest.mark.parametrize("version, table", [("mysql-5.5", "PROCESSLIST"), ("mysql-8.0", "processlist")])
def test_every_processlist_column_it_reads_exists_in(version, table):
    used = set(re.findall(r"\bp\.(\w+)", oldest_trx.TRX_SQL))
    assert used and used <= columns(version, table)


def test_it_reads_80_through_performance_schema_and_counts_the_old_ones_beyond_the_limit():
    conn = RecordedConnection({"INNODB_TRX t": rows("mysql-8.0-oldest-trx.tsv"),
                               "COUNT(*)": [(12,)], "events_statements_current": [(LAST_SQL,)]})
    reading = oldest_trx.collect(conn, mysql("8.0.36"))
    assert "performance_schema.processlist" in conn.executed[0]
    # 932 s the oldest; all ten rows read are past 60 s, so the server counted: 12.
    # Read views: the REPEATABLE READ report (932 s) and the running READ COMMITTED UPDATE (12 s).
    assert reading.values == {"trx_oldest_age_s": 932, "trx_older_60s": 12, "trx_read_view_age_s": 932}
    holder = reading.extra["holder"]
    assert (holder["thread_id"], holder["user"], holder["host"]) == (4711, "report", "10.0.0.7:51234")
    assert holder["statement"] == LAST_SQL and holder["idle"]


def test_it_reads_55_through_information_schema_with_no_client_thread_to_name():
    conn = RecordedConnection({"INNODB_TRX t": rows("mysql-5.5-oldest-trx.tsv")})
    reading = oldest_trx.collect(conn, mysql("5.5.62"))
    assert len(conn.executed) == 1 and "information_schema.PROCESSLIST" in conn.executed[0]
    assert reading.values == {"trx_oldest_age_s": 4000, "trx_older_60s": 1, "trx_read_view_age_s": 4000}
    holder = reading.extra["holder"]
    assert holder["thread_id"] == 0 and holder["user"] is None and holder["statement"] is None


def test_a_running_read_committed_statement_holds_a_view_for_its_own_time():
    conn = RecordedConnection({"INNODB_TRX t": rows("mysql-5.5-oldest-trx.tsv")[1:]})
    reading = oldest_trx.collect(conn, mysql("5.7.44", performance_schema=False))
    assert reading.values == {"trx_oldest_age_s": 45, "trx_older_60s": 0, "trx_read_view_age_s": 40}
    assert reading.extra["holder"]["statement"].startswith("SELECT COUNT(*) FROM orders")


def test_no_transaction_is_no_holder_and_zero_ages():
    reading = oldest_trx.collect(RecordedConnection({"INNODB_TRX t": []}), mysql("8.4.3"))
    assert reading.values == {"trx_oldest_age_s": 0, "trx_older_60s": 0, "trx_read_view_age_s": 0}
    assert reading.extra["holder"] is None
