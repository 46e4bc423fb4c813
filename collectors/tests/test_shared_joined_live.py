"""The poll's shared statement reads its parts as one text on the suite's MariaDB; each part's text is what
its own SELECT gives, and a text holding the separator is read as columns instead."""

from collectors import shared_read
from collectors.connection import detect
from collectors.shared_read import PART_SEP, joined
from collectors.source import Reading, Source
from collectors.sources import variables


def source(name: str, *exprs: str) -> Source:
    return Source(name=name, help="", collect=lambda conn, info: Reading({}), shared=lambda info: exprs,
                  from_shared=lambda texts, conn, info: None)


def test_each_part_reads_as_its_own_select(mariadb):
    conn = mariadb.connect()
    try:
        info = detect(conn)
        shared_read.REFUSED.discard((info.flavor, info.version))  # as in a fresh worker
        exprs = ["'alpha'", "(SELECT CONCAT_WS('\n', 2, 'x\ty'))", "NULL", "12", variables.VARIABLES_COUNTED]
        with conn.cursor() as cur:
            cur.execute(f"SELECT {variables.VARIABLES_COUNTED}")
            [(own,)] = cur.fetchall()
        assert "\nMAX_CONNECTIONS\t" in own  # a counted text of the variables
        assert joined(conn, info, exprs) == ["alpha", "2\nx\ty", "", "12", own]
    finally:
        conn.close()


def test_a_text_holding_the_separator_is_read_as_columns(mariadb):
    conn = mariadb.connect()
    try:
        info = detect(conn)
        shared_read.REFUSED.discard((info.flavor, info.version))
        assert joined(conn, info, [f"'a{PART_SEP}b'", "'c'"]) is None
        shared = shared_read.read(conn, info, [source("first", f"'a{PART_SEP}b'", "'d'"), source("second", "'c'")])
        assert shared.texts == {"first": (f"a{PART_SEP}b", "d"), "second": ("c",)}
    finally:
        conn.close()


def test_a_statement_that_fails_for_the_moment_leaves_the_joined_form_on(mariadb):
    conn = mariadb.connect()
    try:
        info = detect(conn)
        shared_read.REFUSED.discard((info.flavor, info.version))
        assert joined(conn, info, ["(SELECT COUNT(*) FROM performance_schema.no_such_table)"]) is None
        assert (info.flavor, info.version) not in shared_read.REFUSED  # 1146: that part's error, not the form's
        assert joined(conn, info, ["'x'", "'y'"]) == ["x", "y"]
    finally:
        conn.close()
