"""A request reads a range's hot rows once (a ranking's read, then its chart's), and again after this process
writes samples; outside a request every read goes to PostgreSQL."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store import catalog, read_raw
from testing.dashboards import make_server, write_polls

pytestmark = pytest.mark.django_db
END = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def raw_reads(ctx: CaptureQueriesContext) -> int:
    return sum("FROM store_raw" in q["sql"] for q in ctx.captured_queries)


def tps(server, start: datetime, end: datetime) -> list[int]:
    """The server's tps deltas in [start, end] as the hot rows hold them (read_raw.read, as a chart's hot hour)."""
    infos = catalog.matching(catalog.server_metrics([server.pk], ["tps"]), ["tps"])
    found = read_raw.read(server.pk, infos, catalog.server_layouts([server.pk]), start, end)
    return found[infos[0].id].vals.tolist()


def test_a_request_reads_a_range_once_until_this_process_writes():
    server = make_server()
    start = write_polls(server, 30, end=END)
    read_raw.keep_rows()
    try:
        with CaptureQueriesContext(connection) as ctx:
            first = tps(server, start, END)
            again = tps(server, start, END)
        assert raw_reads(ctx) == 1
        assert len(first) == 29 and again == first  # the first poll has no delta
        write_polls(server, 6, end=END + timedelta(seconds=60))
        with CaptureQueriesContext(connection) as ctx:
            after = tps(server, start, END + timedelta(seconds=60))
            same_range = tps(server, start, END)
        assert raw_reads(ctx) == 2
        assert len(after) == 29 + 5 and same_range == first  # again, the new batch's first poll has none
    finally:
        read_raw.stop_keeping_rows()


def test_outside_a_request_every_read_goes_to_the_database():
    server = make_server()
    start = write_polls(server, 30, end=END)
    with CaptureQueriesContext(connection) as ctx:
        assert tps(server, start, END) == tps(server, start, END)
    assert raw_reads(ctx) == 2


def test_a_range_a_request_read_in_parts_is_their_rows_joined():
    server = make_server()
    start = write_polls(server, 30, end=END)
    whole = tps(server, start, END)  # outside a request: read
    middle = END - timedelta(seconds=95)  # between two polls: 10 s apart, ending at END
    read_raw.keep_rows()
    try:
        with CaptureQueriesContext(connection) as ctx:
            first, rest = tps(server, start, middle), tps(server, middle + read_raw.TICK, END)
            joined = tps(server, start, END)
        assert raw_reads(ctx) == 2  # by hand: the two parts; the whole range is theirs
        assert len(first) == 19 and len(rest) == 10 and joined == first + rest == whole
        with CaptureQueriesContext(connection) as ctx:
            shorter = tps(server, start, END - timedelta(seconds=5))  # parts that end past it: read
        assert raw_reads(ctx) == 1 and shorter == whole[:-1]  # all but the poll at END
    finally:
        read_raw.stop_keeping_rows()
