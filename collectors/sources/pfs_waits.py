# SELECT ... FROM performance_schema.events_waits_summary_global_by_event_name: count and time per wait event.
"""Wait events: how often and how long each wait happened, in picoseconds (Python ints)."""

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import PS, Metric
from collectors.source import (
    Reading,
    Source,
    counted_sql,
    from_counted,
    joined_rows,
    joined_sql,
    require_performance_schema,
)

NAME = "pfs_waits"

# Only events that happened at all: keeps the sample small (a missing event was zero
# at the previous read, which the delta engine knows). idle is a client's think time.
WAITS_COLUMNS = "EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT"
WAITS_FROM = ("FROM performance_schema.events_waits_summary_global_by_event_name"
              " WHERE COUNT_STAR > 0 AND EVENT_NAME <> 'idle'")
# The rows one by one: the fallback when the joined text does not add up.
WAITS_SQL = f"SELECT {WAITS_COLUMNS} {WAITS_FROM}"
# The same rows as one text (collectors.source.joined_rows): far cheaper for us to parse.
WAITS_JOINED_SQL = joined_sql(WAITS_COLUMNS, WAITS_FROM)
# The same text as a part of the poll's shared statement (collectors.shared_read).
WAITS_COUNTED = counted_sql(WAITS_COLUMNS, WAITS_FROM)


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    require_performance_schema(info, NAME)
    return reading(joined_rows(conn, WAITS_JOINED_SQL, WAITS_SQL))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (WAITS_COUNTED,) if info.performance_schema else ()


def reading(rows: list[tuple]) -> Reading:
    values: dict[str, int] = {}
    for event, count, timer in rows:
        values[f"wait.count:{event}"] = int(count)
        values[f"wait.time_ps:{event}"] = int(timer)
    if not values:
        return Reading({}, frozenset(), absent_is_zero=True, reset_together=True,
                       note="no wait event has been counted yet: check performance_schema.setup_instruments"
                            " (wait/% ENABLED and TIMED) and setup_consumers (global_instrumentation)")
    # TRUNCATE TABLE zeroes every row at once: one decrease is a reset of the whole reading.
    return Reading(values, frozenset(values), absent_is_zero=True, reset_together=True)


METRICS = (
    Metric.counter("wait.count:", "waits", "waits of a performance_schema wait event"),
    Metric.counter("wait.time_ps:", PS, "time waited on a performance_schema wait event"),
)


SOURCE = Source(
    name=NAME,
    help="performance_schema wait events: wait.count:<event> and wait.time_ps:<event> (idle excluded)",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 5, 3), "mariadb": (5, 5, 0)},
    interval=None,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_counted(reading),
)
