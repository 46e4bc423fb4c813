"""A request reads a range's hourly digest rollups and its reads' times once (the totals, then the lines), and
again after this process writes digest reads or rolls an hour up; outside a request every read goes to
PostgreSQL."""

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from store import statement_hours, statement_reads
from store.statements import COUNTERS, StatementRow, write

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
START, END = T0, T0 + timedelta(hours=2)


@pytest.fixture
def sent(monkeypatch):
    """Every statement sent through psycopg (Django's cursors and the store's binary ones)."""
    found: list = []
    execute = psycopg.Cursor.execute

    def counted(self, query, *args, **kwargs):
        found.append(str(query))
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return found


def read(minute: int, execs: int) -> StatementRow:
    counts = tuple(execs if name == "execs" else 0 for name in COUNTERS)
    return StatementRow(1, T0 + timedelta(minutes=minute), 60_000, "s", "d", counts, 1)


def execs() -> int:
    return statement_reads.totals(1, START, END)[0].sums["execs"]


def rollup_reads(sent: list) -> int:
    return sum("FROM store_statement_hour" in query for query in sent)


def time_reads(sent: list) -> int:
    return sum(query == statement_reads.TIMES_SQL for query in sent)


def test_a_request_reads_a_range_s_rollups_once_until_this_process_writes(sent):
    write([read(k, k) for k in range(1, 121)], {})  # 10:01 to 12:00: 1 + 2 + ... + 120 = 7260 executions
    statement_hours.roll_closed(T0 + timedelta(hours=3))  # 10 h and 11 h from their rollups
    statement_reads.keep_hours()
    try:
        sent.clear()
        assert execs() == execs() == 7260
        assert rollup_reads(sent) == 1
        write([StatementRow(1, T0 + timedelta(minutes=30, seconds=30), 30_000, "s", "d",
                            tuple(1000 if name == "execs" else 0 for name in COUNTERS), 1)], {})
        sent.clear()
        assert execs() == 8260  # 10 h is read raw: its rollup lacks the late read
        assert rollup_reads(sent) == 1
        statement_hours.roll_closed(T0 + timedelta(hours=3))
        sent.clear()
        assert execs() == execs() == 8260
        assert rollup_reads(sent) == 1
    finally:
        statement_reads.stop_keeping_hours()


def test_outside_a_request_every_read_goes_to_the_database(sent):
    write([read(k, k) for k in range(1, 121)], {})
    statement_hours.roll_closed(T0 + timedelta(hours=3))
    sent.clear()
    assert execs() == execs() == 7260
    assert rollup_reads(sent) == 2


def test_a_request_reads_a_range_s_times_once_for_its_reads_and_its_bins(sent):
    write([read(k, k) for k in range(1, 121)], {})
    statement_hours.roll_closed(T0 + timedelta(hours=3))
    statement_reads.keep_hours()
    try:
        sent.clear()
        assert len(statement_reads.reads(1, START, END)) == 120
        # Three bins of 40 minutes: 10 h's reads fall in two (10:40 in the second, as bin_index puts it), so
        # its reads after 10:39 are read: the range's times place them.
        d = statement_reads.totals(1, START, END)[0].digest_id
        assert statement_reads.binned(1, [d], START, END, 3)[d][0][0] == sum(range(1, 40))
        assert time_reads(sent) == 1
        write([StatementRow(1, T0 + timedelta(minutes=90, seconds=30), 30_000, "s", "d", (0,) * len(COUNTERS), 1)],
              {})
        assert len(statement_reads.reads(1, START, END)) == 121  # the late read, in the same request
        assert time_reads(sent) == 2
    finally:
        statement_reads.stop_keeping_hours()
