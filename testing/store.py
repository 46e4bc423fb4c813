"""Store test support: fleet-like samples, and a reset of the process caches (metric ids,
partitions) that tests roll the database back under."""

from datetime import UTC, datetime, timedelta

from django.db import connection

from store import buffer, catalog, partitions, pending_hours
from store.sample import Sample

PS_TIMER = "wait.time_ps:wait/io/file/innodb/innodb_data_file"
T0 = datetime(2026, 1, 5, 10, 0, 0, tzinfo=UTC)


def reset_caches() -> None:
    """Empty the process caches and the Redis buffer."""
    catalog.forget()
    partitions.forget()
    pending_hours.forget()
    buffer.client().delete(buffer.KEY, buffer.INFLIGHT, buffer.GAPS, buffer.NEWEST)


COUNT_ROWS = "SELECT count(*), count(DISTINCT (server_id, source_id, ts)) FROM store_raw WHERE server_id = ANY(%s)"


def stored_rows(server_ids: list[int]) -> tuple[int, int]:
    """Raw rows stored of these servers, and how many distinct polls they are."""
    with connection.cursor() as cur:
        cur.execute(COUNT_ROWS, [server_ids])
        return cur.fetchone()


def truncate_tables() -> None:
    """Transactional tests commit: empty the partitioned tables afterwards."""
    with connection.cursor() as cur:
        cur.execute("TRUNCATE store_raw, store_block, store_block_series, store_rollup_1m, store_rollup_1h,"
                    " store_statement, store_statement_text, store_statement_hour, store_statement_pending")


def poll(server_id: int, i: int, source: str = "global_status", t0: datetime = T0, step: int = 10) -> Sample:
    """The i-th poll: counters with deltas (many zeros, a picosecond timer), gauges."""
    values = {
        "Com_select": 100 + (i * 7) % 13,
        "Com_commit": i % 3,
        "Com_rollback": 0,
        PS_TIMER: 5 * 10**15 + i * 123_456_789,
        "Threads_running": 1 + i % 5,
        "load": 0.5 + (i % 4) / 8,
    }
    counters = frozenset({"Com_select", "Com_commit", "Com_rollback", PS_TIMER})
    if i == 0:  # the first reading has no deltas
        values = {k: v for k, v in values.items() if k not in counters}
    return Sample(server_id, source, t0 + timedelta(seconds=step * i), None if i == 0 else float(step),
                  values, counters if i else frozenset())


def polls(server_id: int, n: int, **kw) -> list[Sample]:
    return [poll(server_id, i, **kw) for i in range(n)]
