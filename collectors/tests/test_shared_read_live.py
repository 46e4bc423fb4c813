"""The poll's shared statement on the suite's MariaDB: each part's text is what its own SELECT gives, in one
statement, and a part that fails leaves every source to read alone."""

from collectors import shared_read
from collectors.connection import detect
from collectors.source import Reading, Source
from collectors.sources import variables


def source(name: str, *exprs: str) -> Source:
    return Source(name=name, help="", collect=lambda conn, info: Reading({}), shared=lambda info: exprs,
                  from_shared=lambda texts, conn, info: None)


def test_each_part_reads_as_its_own_select(mariadb):
    conn = mariadb.connect()
    try:
        info = detect(conn)
        with conn.cursor() as cur:
            cur.execute(f"SELECT {variables.VARIABLES_COUNTED}")
            [(own,)] = cur.fetchall()
        assert "\nMAX_CONNECTIONS\t" in own  # a counted text of the variables
        shared = shared_read.read(conn, info, [source("first", "'alpha'", "(SELECT CONCAT_WS('\n', 2, 'x\ty'))"),
                                               source("second", "NULL", "12", variables.VARIABLES_COUNTED)])
        assert shared.texts == {"first": ("alpha", "2\nx\ty"), "second": (None, 12, own)}
    finally:
        conn.close()


def test_a_failing_part_leaves_each_source_to_read_alone(mariadb):
    conn = mariadb.connect()
    try:
        info = detect(conn)
        shared = shared_read.read(conn, info, [source("first", "(SELECT COUNT(*) FROM performance_schema.no_such)"),
                                               source("second", "'x'")])
        assert shared is shared_read.NOT_SHARED
        assert shared_read.read(conn, info, [source("first", "'x'"), source("second", "'y'")]).texts == {
            "first": ("x",), "second": ("y",)}
    finally:
        conn.close()
