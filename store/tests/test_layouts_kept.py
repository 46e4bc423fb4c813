"""A request reads a server's layouts once, and again after this process makes one; outside a request every
call reads them."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store import catalog
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import make_server

pytestmark = pytest.mark.django_db
T = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def layout_reads(ctx: CaptureQueriesContext) -> int:
    return sum("FROM store_layout l" in q["sql"] for q in ctx.captured_queries)


def sources(server) -> list[str]:
    return sorted(lay.source for lay in catalog.server_layouts([server.pk]))


def test_a_request_reads_layouts_once_until_this_process_makes_one():
    server = make_server()
    write_samples([Sample(server.pk, "global_status", T, None, {"Threads_running": 4})])
    catalog.keep_layouts()
    try:
        with CaptureQueriesContext(connection) as ctx:
            assert sources(server) == sources(server) == ["global_status"]
        assert layout_reads(ctx) == 1
        write_samples([Sample(server.pk, "history_length", T + timedelta(seconds=10), None,
                              {"history_list_length": 1000})])  # a new source: a new layout
        with CaptureQueriesContext(connection) as ctx:
            assert sources(server) == ["global_status", "history_length"]
        assert layout_reads(ctx) == 1
    finally:
        catalog.stop_keeping_layouts()


def test_outside_a_request_every_call_reads_them():
    server = make_server()
    write_samples([Sample(server.pk, "global_status", T, None, {"Threads_running": 4})])
    with CaptureQueriesContext(connection) as ctx:
        assert sources(server) == sources(server) == ["global_status"]
    assert layout_reads(ctx) == 2
