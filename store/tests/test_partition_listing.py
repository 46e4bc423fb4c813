"""A request lists each table's partitions once for the levels' availability, and sees at once what this
process creates or drops; outside a request every call lists them."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store import levels, partitions
from testing.dashboards import make_server, write_polls
from testing.store import T0

pytestmark = pytest.mark.django_db
NOW = T0 + timedelta(days=30)
OLD = T0 - timedelta(days=400)


def listings(ctx: CaptureQueriesContext) -> int:
    return sum("pg_inherits" in q["sql"] for q in ctx.captured_queries)


def by_hand() -> object:
    """levels.available_since(FULL, NOW) from the catalog: the raw retention, or an older raw/block partition."""
    with connection.cursor() as cur:
        cur.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                    " JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname IN ('store_raw', 'store_block')")
        names = [r[0] for r in cur.fetchall()]
    scheme = {"store_raw": partitions.RAW, "store_block": partitions.BLOCK}
    return min([NOW - timedelta(days=14)] + [scheme[n.rsplit("_p", 1)[0]].start_of(n) for n in names])


def test_a_request_lists_once_and_again_after_this_process_drops_a_partition():
    partitions.ensure(partitions.RAW, OLD)
    expected = by_hand()
    partitions.keep_oldest()
    try:
        with CaptureQueriesContext(connection) as ctx:
            for _ in range(5):
                assert levels.available_since(levels.FULL, NOW) == partitions.RAW.floor(OLD) == expected
        assert listings(ctx) == 2  # store_raw and store_block, once each
        partitions.drop(partitions.RAW.name(partitions.RAW.floor(OLD)))
        assert levels.available_since(levels.FULL, NOW) == by_hand() > OLD
        partitions.ensure(partitions.BLOCK, OLD)
        assert levels.available_since(levels.FULL, NOW) == partitions.BLOCK.floor(OLD) == by_hand()
    finally:
        partitions.stop_keeping_oldest()


def test_outside_a_request_every_call_lists_what_is_there():
    partitions.ensure(partitions.RAW, OLD)
    assert levels.available_since(levels.FULL, NOW) == partitions.RAW.floor(OLD)
    with connection.cursor() as cur:  # as another process's maintenance would
        cur.execute(f"DROP TABLE {partitions.RAW.name(partitions.RAW.floor(OLD))}")
    expected = by_hand()
    with CaptureQueriesContext(connection) as ctx:
        assert levels.available_since(levels.FULL, NOW) == expected > OLD
    assert listings(ctx) == 2


def test_a_page_lists_each_table_once(admin_client):
    server = make_server()
    write_polls(server, 90)
    with CaptureQueriesContext(connection) as ctx:
        assert admin_client.get(f"/servers/{server.pk}/stability/?range=6h").status_code == 200
    assert listings(ctx) <= 3  # store_raw, store_block, store_rollup_1m
