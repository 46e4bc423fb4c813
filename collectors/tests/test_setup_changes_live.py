"""The instrumentation reads of the suite's MariaDB are made again only after a switch moves.

The wait instruments' families, the statement digests' setup and the TPS counter's choice each scan
performance_schema.setup_instruments; with nothing turned on or off, the polls after the first one ask
only the sums (collectors.setup_changes), and one instrument turned off is read again by the next poll.
"""

import pytest

from collectors import pool
from collectors.batch import poll_server
from collectors.connection import detect
from collectors.setup_changes import SetupWatch
from collectors.sources import statements, wait_instruments

pytestmark = pytest.mark.django_db
SOURCES = ["global_status", "pfs_waits", "wait_instruments", "statements"]
INSTRUMENT = "wait/io/file/sql/FRM"  # one wait/io instrument, on and timed in the suite's MariaDB
# Every statement that read setup_instruments, per digest (the sums and the poll's shared statement use CONCAT_WS).
READS_SQL = ("SELECT DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest"
             " WHERE DIGEST_TEXT LIKE '%setup_instruments%' AND DIGEST_TEXT NOT LIKE '%CONCAT_WS%'"
             " AND DIGEST_TEXT LIKE 'SELECT%'")
# The sums in a statement of their own, and in the poll's shared statement (which also reads the status tables).
SUMS_ALONE_SQL = ("SELECT COALESCE(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest"
                  " WHERE DIGEST_TEXT LIKE '%setup_consumers%' AND DIGEST_TEXT LIKE '%NULLIF%'"
                  " AND DIGEST_TEXT {} LIKE '%events_waits_summary_global_by_event_name%'")
IO_OFF_SQL = ("SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/io/%'"
              " AND NOT (ENABLED = 'YES' AND TIMED = 'YES')")


def reads(mariadb) -> dict[str, int]:
    return {text: int(count) for text, count in mariadb.execute(READS_SQL)}


def grown(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {text: count - before.get(text, 0) for text, count in after.items() if count != before.get(text, 0)}


def io_off_gauge(server) -> int:
    found = next(s for s in poll_server(server.id, only=SOURCES).sources if s.name == "wait_instruments")
    assert found.ok and found.sample is not None, found.error
    return int(found.sample.values["wait.instruments_off:wait/io"])


@pytest.fixture
def every_poll_asks(monkeypatch):
    """Each poll asks whether the setup changed (a minute apart in the product)."""
    monkeypatch.setattr(wait_instruments, "INSTRUMENTS_EVERY_S", 0)
    monkeypatch.setattr(statements, "SETUP_EVERY_S", 0)
    monkeypatch.setattr(pool, "BASIS_RECHECK_S", 0)


@pytest.fixture
def one_instrument_off(mariadb):
    def turn_off() -> None:
        mariadb.execute(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = '{INSTRUMENT}'")
    yield turn_off
    mariadb.execute(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = '{INSTRUMENT}'")


def test_it_reads_the_instruments_again_only_after_one_is_turned_off(server, mariadb, every_poll_asks,
                                                                     one_instrument_off):
    off_before = int(mariadb.execute(IO_OFF_SQL)[0][0])
    assert io_off_gauge(server) == off_before  # the first poll reads them all
    first = reads(mariadb)
    for _ in range(3):
        assert io_off_gauge(server) == off_before
    assert grown(first, reads(mariadb)) == {}  # three polls, nothing changed: not one scan

    one_instrument_off()
    before = reads(mariadb)
    assert io_off_gauge(server) == off_before + 1
    again = grown(before, reads(mariadb))
    assert any("SUBSTRING_INDEX" in text for text in again)  # the wait families, read again
    assert len(again) >= 2 and all(count == 1 for count in again.values())  # and the digests' setup, once each


def test_a_connection_that_cannot_answer_the_sums_leaves_the_source_to_read(mariadb):
    """The sums are a shortcut: where they fail, the source's own read runs and reports what is wrong."""
    conn = mariadb.connect()
    info = detect(conn)
    watch = SetupWatch()
    assert watch.due(conn, info, 0)
    watch.mark()
    assert not watch.due(conn, info, 0)  # nothing moved
    conn.close()
    assert watch.due(conn, info, 0)  # not raised: the source's read meets the closed connection itself


def sums_read(mariadb) -> tuple[int, int]:
    """(statements of the sums alone, shared statements carrying them), as counted so far."""
    alone, shared = (int(mariadb.execute(SUMS_ALONE_SQL.format(word))[0][0]) for word in ("NOT", ""))
    return alone, shared


def test_the_sums_ride_in_the_shared_statement_of_a_poll_whose_sources_ask_them(server, mariadb):
    """The statement digests ask the sums as read in the poll each time they read: the shared statement brings them."""
    poll_server(server.id, only=SOURCES)
    alone, shared = sums_read(mariadb)
    for _ in range(3):
        found = {s.name: s for s in poll_server(server.id, only=SOURCES).sources}
        assert all(s.ok for s in found.values()), [s.error for s in found.values()]
        assert found["statements"].sample.values[statements.INSTRUMENTS_ALL] > 0  # the digests' setup, as read
    assert sums_read(mariadb) == (alone, shared + 3)
