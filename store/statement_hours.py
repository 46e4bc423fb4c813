"""Hourly rollups of the statement digests: per server and closed hour, each digest's sums, reads, highest
max, newest quantiles and first and last read, so that a day's or a week's top reads 24 or 168 rows.

Every write of digest reads marks its (server, hour) pending (store.statements.write); each maintenance
pass rolls up the pending hours that are closed, from their reads, exactly (store.statement_reads sums
them), and clears the mark. Readers use an hour's rollup only while it holds as many reads as the hour
has (store.statement_reads.rolled_hours): a read written late (a loaded collection, an imported run) is
read raw until its hour is rolled up again. An hour whose sums would not fit the store's varints (2**62,
some 1,300 threads busy in one digest the whole hour) is not rolled up: its reads stay the answer.
"""

from datetime import datetime, timedelta

from django.db import connection, transaction

from store import config, partitions, statement_reads
from store.statements import COUNTERS, HOUR, encode_hour

PER_PASS = 2000  # hours rolled up in one maintenance pass (about 20 ms each at 60 reads of 200 digests)
LIMIT = 2**62  # what a zigzag varint holds (store.codec)
TICK = timedelta(microseconds=1)

PENDING = "SELECT server_id, hour FROM store_statement_pending WHERE hour <= %s ORDER BY hour, server_id LIMIT %s"
# Marks of hours older than the retention: their reads are gone, or about to go.
EXPIRED = "DELETE FROM store_statement_pending WHERE hour < %s"
DONE = "DELETE FROM store_statement_pending WHERE server_id = %s AND hour = %s"
COUNT_READS = "SELECT count(*) FROM store_statement WHERE server_id = %s AND ts > %s AND ts <= %s"
DELETE = "DELETE FROM store_statement_hour WHERE server_id = %s AND hour = %s"
INSERT = "INSERT INTO store_statement_hour (hour, server_id, reads, n, ids, data) VALUES (%s, %s, %s, %s, %s, %s)"


def roll_closed(now: datetime) -> int:
    """Roll up the pending hours that ended at least the compaction grace before now; how many."""
    with connection.cursor() as cur:
        cur.execute(EXPIRED, [now - config.statements_retention()])
        cur.execute(PENDING, [now - HOUR - config.compact_grace(), PER_PASS])
        pending = cur.fetchall()
    for server_id, hour in pending:
        roll_hour(server_id, hour)
    return len(pending)


def roll_hour(server_id: int, hour: datetime) -> None:
    """The hour (hour, hour + 1 h]'s rollup from its reads, replacing any earlier one; the mark cleared."""
    partitions.ensure(partitions.STATEMENT_HOUR, hour)
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(DONE, [server_id, hour])  # first: a write after this point marks the hour again
        cur.execute(COUNT_READS, [server_id, hour, hour + HOUR])
        reads = cur.fetchone()[0]
        rows = statement_reads.totals(server_id, hour, hour + HOUR, rollups=False)
        cur.execute(DELETE, [server_id, hour])
        statement_reads.wrote()  # a request's rollups kept before are read again
        matrix = [row_of(total, hour) for total in rows]
        if not rows or any(v is not None and v >= LIMIT for row in matrix for v in row):
            return
        ids, data = encode_hour([total.digest_id for total in rows], matrix)
        cur.execute(INSERT, [hour, server_id, reads, len(rows), ids, data])


def row_of(total: statement_reads.DigestTotals, hour: datetime) -> list[int | None]:
    return [*(total.sums[name] for name in COUNTERS), total.intervals, total.max_ps, total.p95_ps, total.p99_ps,
            (total.first - hour) // TICK, (total.last - hour) // TICK]
