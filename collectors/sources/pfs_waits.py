# SELECT ... FROM performance_schema.events_waits_summary_global_by_event_name: count and time per wait event.
"""Wait events: how often and how long each wait happened, in picoseconds (Python ints)."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import PS, Metric
from collectors.source import (
    Reading,
    Source,
    counted_fields,
    counted_sql,
    from_counted,
    integers,
    joined_rows,
    joined_sql,
    require_performance_schema,
)
from collectors.sources import wait_instruments

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


def instruments_note(conn: pymysql.Connection, info: ServerInfo) -> str:
    """Which wait instruments the server leaves off, and how to turn them on; "" when all are on."""
    return wait_instruments.instruments_check(conn, info)[0]


def noted(make: Callable[[list[tuple]], Reading]) -> Callable[[tuple, Any, ServerInfo], Reading | None]:
    """from_counted(make), its reading's note saying which wait instruments are off; rows that add up
    are read by their events' names (planned_reading)."""
    plain = from_counted(make)

    def from_shared(texts: tuple, conn: Any, info: ServerInfo) -> Reading | None:
        fields = counted_fields(texts[0], 3)
        found = plain(texts, conn, info) if fields is None else planned_reading(fields)
        return None if found is None else with_note(found, instruments_note(conn, info))
    return from_shared


# The table instruments sum over the tables the server holds: a dropped table takes its waits with it, so
# these counters go down on their own (CREATE/DROP TABLE under a load) without any TRUNCATE. Their decrease
# drops their delta alone; any other event going down or vanishing is a TRUNCATE of the summary.
TABLE_EVENTS = tuple(f"{kind}:wait/{what}/table/" for kind in ("wait.count", "wait.time_ps")
                     for what in ("io", "lock"))

# The events of a reading, in the server's order -> their metric names: the same every poll of a
# server, so the few hundred names are made once and not per poll.
NAMES: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]] = {}
MAX_NAMES = 256  # distinct lists of events: past this they are made again


def planned_reading(fields: list[str]) -> Reading:
    """reading() of the rows of these fields (event, count, time), in a few passes that are not Python loops."""
    if not fields:
        return reading([])
    events = tuple(fields[0::3])
    counts, times, names = names_of(events)
    values = dict(zip(counts + times, integers(fields[1::3] + fields[2::3]), strict=True))
    return Reading(values, names, absent_is_zero=True, reset_together=True,
                   resets_alone=TABLE_EVENTS)


# The events last named and their names: the same list on a fleet's servers of one version, and comparing a
# poll's ~200 new event texts with it costs a fifth of hashing them all for NAMES.
LAST_NAMES: tuple[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...], frozenset[str]] | None] = ((), None)


def names_of(events: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    global LAST_NAMES
    last_events, made = LAST_NAMES  # one read: the pair stays whole whichever thread sets it
    if made is None or events != last_events:
        made = NAMES.get(events) or metric_names(events)
        LAST_NAMES = (events, made)
    return made


def metric_names(events: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    counts = tuple(f"wait.count:{event}" for event in events)
    times = tuple(f"wait.time_ps:{event}" for event in events)
    if len(NAMES) >= MAX_NAMES:
        NAMES.clear()
    NAMES[events] = (counts, times, frozenset(counts + times))
    return NAMES[events]


def with_note(found: Reading, note: str) -> Reading:
    return replace(found, note="; ".join(n for n in (found.note, note) if n)) if note else found


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    require_performance_schema(info, NAME)
    return with_note(reading(joined_rows(conn, WAITS_JOINED_SQL, WAITS_SQL)), instruments_note(conn, info))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (WAITS_COUNTED,) if info.performance_schema else ()


def reading(rows: list[tuple]) -> Reading:
    values: dict[str, int] = {}
    for event, count, timer in rows:
        values[f"wait.count:{event}"] = int(count)
        values[f"wait.time_ps:{event}"] = int(timer)
    if not values:
        return Reading({}, frozenset(), absent_is_zero=True, reset_together=True,
                   resets_alone=TABLE_EVENTS,
                       note="no wait event has been counted yet: check performance_schema.setup_instruments"
                            " (wait/% ENABLED and TIMED) and setup_consumers (global_instrumentation)")
    # TRUNCATE TABLE zeroes every row at once: one decrease is a reset of the whole reading (save TABLE_EVENTS).
    return Reading(values, frozenset(values), absent_is_zero=True, reset_together=True,
                   resets_alone=TABLE_EVENTS)


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
    from_shared=noted(reading),
)
