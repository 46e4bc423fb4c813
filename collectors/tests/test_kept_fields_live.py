"""Column descriptors parsed once per process (collectors.connection.KeptField): each statement's columns and
values come out as PyMySQL's own parse gives them, on the suite's MariaDB."""

from datetime import date
from decimal import Decimal

import pymysql

from collectors.connection import KeptField, open_connection

# Columns of each kind PyMySQL converts differently: integer, decimal, text, binary, date, NULL, and the same
# name with another type in the next statement (its descriptor differs, so it is not taken for the first).
STATEMENTS = (
    "SELECT 1 AS a, 2.50 AS b, 'x' AS c, BINARY 'y' AS d, DATE '2026-11-27' AS e, NULL AS f",
    "SELECT 'one' AS a, 7 AS b",
    "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES"
    " WHERE VARIABLE_NAME = 'MAX_CONNECTIONS'",
)


def read(conn, sql: str) -> tuple:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.description, cur.fetchall()


def test_it_reads_each_statement_as_pymysql_does(mariadb, monitor_credentials):
    ours = open_connection(**monitor_credentials)
    plain = pymysql.connect(**monitor_credentials, charset="utf8mb4", autocommit=True)
    try:
        for _ in range(2):  # the second round from the kept descriptors
            for sql in STATEMENTS:
                assert read(ours, sql) == read(plain, sql)
        assert read(ours, STATEMENTS[0])[1] == ((1, Decimal("2.50"), "x", b"y", date(2026, 11, 27), None),)
    finally:
        ours.close()
        plain.close()


def test_it_parses_a_statements_descriptors_once(mariadb, monitor_credentials):
    conn = open_connection(**monitor_credentials)
    try:
        read(conn, STATEMENTS[0])
        first = conn._result.fields
        read(conn, STATEMENTS[0])
        assert all(isinstance(f, KeptField) for f in first)
        assert [id(f) for f in conn._result.fields] == [id(f) for f in first]  # 6 columns, none parsed again
    finally:
        conn.close()
