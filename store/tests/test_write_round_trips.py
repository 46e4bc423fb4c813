"""In autocommit, as the worker writes, a batch's COPY is its own transaction: no BEGIN or COMMIT round trips."""

import tempfile

import pytest
from django.db import connection, transaction

from store.ingest import write_samples
from testing.store import polls, stored_rows


def traced_statements(write) -> str:
    """What libpq sent while write() ran (its trace: one line a message)."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile("w+") as trace:
        pgconn.trace(trace.fileno())
        try:
            write()
        finally:
            pgconn.untrace()
        trace.seek(0)
        return trace.read()


@pytest.mark.django_db(transaction=True)
def test_it_copies_in_autocommit_without_begin_or_commit(store_tables_cleanup):
    write_samples(polls(31, 2))  # layouts and partitions made: the next write only copies
    sent = traced_statements(lambda: write_samples(polls(31, 5)[2:]))
    assert "COPY store_raw " in sent
    assert '"BEGIN"' not in sent and '"COMMIT"' not in sent
    assert stored_rows([31]) == (5, 5)


@pytest.mark.django_db(transaction=True)
def test_a_copy_that_fails_inside_a_callers_transaction_leaves_it_usable(store_tables_cleanup):
    samples = polls(32, 3)
    write_samples(samples)
    with transaction.atomic():
        write_samples(samples + polls(32, 4)[3:])  # the COPY of a stored poll fails; its savepoint is rolled back
        assert stored_rows([32]) == (4, 4)
    assert stored_rows([32]) == (4, 4)


ORPHANS = ("SELECT count(*) FROM store_raw r WHERE r.server_id = %s"
           " AND NOT EXISTS (SELECT 1 FROM store_layout l WHERE l.id = r.layout_id)")


@pytest.mark.django_db(transaction=True)
def test_a_layout_gone_from_the_table_is_made_again_not_written_against(store_tables_cleanup):
    write_samples(polls(33, 2))  # the second poll's layout (its counters added) made and cached
    with connection.cursor() as cur:
        cur.execute("DELETE FROM store_layout WHERE id IN (SELECT layout_id FROM store_raw WHERE server_id = 33)")
        write_samples(polls(33, 3)[2:])  # the same names as the second poll
        cur.execute(ORPHANS, [33])
        assert cur.fetchone()[0] == 2  # the first two polls' rows only: the third went with a layout made again
    assert stored_rows([33]) == (3, 3)
