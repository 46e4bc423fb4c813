"""A 1-minute rollup row over 2 kB (a busy counter's buckets and rate extremes) stays in its table row."""

import os
from datetime import UTC, datetime

import pytest
from django.db import connection

from store import partitions

pytestmark = pytest.mark.django_db
HOUR = datetime(2026, 1, 5, 10, tzinfo=UTC)
TOAST_SIZE = ("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = %s")


def test_a_row_over_two_kilobytes_is_not_moved_out():
    name = partitions.ensure(partitions.ROLLUP_1M, HOUR)
    blob = os.urandom(3000)  # incompressible: only moving it out would make the row smaller
    with connection.cursor() as cur:
        cur.execute("INSERT INTO store_rollup_1m (period, server_id, metric_id, data) VALUES (%s, 1, 1, %s)",
                    [HOUR, blob])
        cur.execute(TOAST_SIZE, [name])
        assert cur.fetchone()[0] == 0
        cur.execute("SELECT data FROM store_rollup_1m WHERE server_id = 1 AND metric_id = 1 AND period = %s", [HOUR])
        assert bytes(cur.fetchone()[0]) == blob
