"""A request reads a server's metric catalog once for all its lookups by name, and again after this process
registers a name; outside a request every lookup reads PostgreSQL's filtered rows."""

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
VALUES = {"Threads_running": 4, "Innodb_rows_read": 10, "Innodb_rows_inserted": 5, "Innodb_row_lock_waits": 1,
          "Com_select": 7, "Com_select_x": 1}


def catalog_reads(ctx: CaptureQueriesContext) -> int:
    return sum("FROM store_metric" in q["sql"] for q in ctx.captured_queries)


def names(server, patterns: list[str]) -> list[str]:
    return sorted(m.name for m in catalog.server_metrics([server.pk], patterns))


def lookups(server) -> list[list[str]]:
    return [names(server, ["Threads_running"]), names(server, ["Innodb_rows_*"]),
            names(server, ["Com_select", "nothing"]), names(server, ["*_read", "Innodb_row_*"]), names(server, ["*"])]


def test_a_request_reads_the_catalog_once_and_answers_as_postgresql_does():
    server = make_server()
    write_samples([Sample(server.pk, "global_status", T, None, VALUES)])
    expected = [["Threads_running"], ["Innodb_rows_inserted", "Innodb_rows_read"], ["Com_select"],
                ["Innodb_row_lock_waits", "Innodb_rows_read"], sorted(VALUES)]
    with CaptureQueriesContext(connection) as ctx:
        assert lookups(server) == expected  # outside a request: PostgreSQL filters each
    assert catalog_reads(ctx) == 5
    catalog.keep_metrics()
    try:
        with CaptureQueriesContext(connection) as ctx:
            assert lookups(server) == expected
        assert catalog_reads(ctx) == 1
        write_samples([Sample(server.pk, "global_status", T + timedelta(seconds=10), None, {"Innodb_rows_deleted": 2})])
        assert names(server, ["Innodb_rows_*"]) == ["Innodb_rows_deleted", "Innodb_rows_inserted", "Innodb_rows_read"]
    finally:
        catalog.stop_keeping_metrics()
