"""The shared statement's lean read (collectors.connection.one_row): each row as PyMySQL's cursor gives it, on the
suite's MariaDB, its columns compared with the last answer's and read again where they differ."""

from dataclasses import replace

import pymysql
import pytest

from collectors import connection
from collectors.connection import one_row, open_connection

# Every way a text row spells a column: integers, a decimal, texts of one, two and three length bytes (250,
# 300 and 70,000 characters), a binary text, NULL, a date, a non-ASCII text, tabs and line breaks.
MIXED = ("SELECT 1, -7, 2.50, 18446744073709551615, REPEAT('a', 250), REPEAT('b', 300), REPEAT('c', 70000),"
         " BINARY 'y', NULL, DATE '2026-11-28', 'zoë', CONCAT_WS('\n', 2, 'x\ty')")


def cursor_row(conn, sql: str) -> tuple:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()[0]


@pytest.fixture
def conn(mariadb, monitor_credentials):
    conn = open_connection(**monitor_credentials)
    yield conn
    conn.close()


def test_it_reads_each_column_as_the_cursor_does(conn):
    expected = cursor_row(conn, MIXED)
    assert expected[:2] == (1, -7) and str(expected[2]) == "2.50" and expected[3] == 18446744073709551615
    assert [len(text) for text in expected[4:7]] == [250, 300, 70000]
    assert expected[7:] == (b"y", None, expected[9], "zoë", "2\nx\ty") and str(expected[9]) == "2026-11-28"
    for _ in range(3):  # the first answer's columns read one by one, then compared at once
        row = one_row(conn, MIXED)
        assert row == expected and [type(v) for v in row] == [type(v) for v in expected]
    assert cursor_row(conn, "SELECT 'after'") == ("after",)  # the connection is where the cursor expects it


def test_columns_that_differ_from_the_last_answers_are_read_again(conn):
    one_row(conn, "SELECT 7, 'x'")
    key = next(k for k in connection.COLUMNS if k[0] == "SELECT 7, 'x'")
    kept = connection.COLUMNS[key]
    # The same statement answered with other descriptors (another build of the server): a converter of text.
    other = kept.sent[:-1] + bytes([kept.sent[-1] ^ 1])
    connection.COLUMNS[key] = replace(kept, sent=other, reader=((None, None), (None, None)))
    assert one_row(conn, "SELECT 7, 'x'") == (7, "x")
    assert connection.COLUMNS[key] == kept


def test_no_row_is_none(conn):
    assert one_row(conn, "SELECT 1 FROM DUAL WHERE 1 = 0") is None
    assert one_row(conn, "SELECT 2") == (2,)


def test_an_error_in_place_of_the_row_is_raised_and_the_connection_goes_on(conn):
    for _ in range(2):  # unknown columns, then kept ones
        with pytest.raises(pymysql.MySQLError) as raised:
            one_row(conn, "SELECT 1, (SELECT 1 UNION SELECT 2)")
        assert raised.value.args[0] == 1242  # subquery returns more than one row
    assert one_row(conn, "SELECT 3") == (3,)


def test_a_statement_without_columns_closes_the_connection(conn):
    with pytest.raises(pymysql.err.OperationalError):
        one_row(conn, "DO 1")
    assert not conn.open
