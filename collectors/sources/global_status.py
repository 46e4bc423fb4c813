# GLOBAL_STATUS table as one text (MariaDB 10.5.2+: performance_schema.global_status, and information_schema's rows
# of the Com_ counters and the two gauges performance_schema misreports; or SHOW GLOBAL STATUS),
# plus the transaction counter of collectors.transactions.
"""Global status: every numeric status variable; counters become deltas, gauges stay values."""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import filterfalse

import pymysql

from collectors import transactions
from collectors.connection import ServerInfo
from collectors.metric import TPS, Metric
from collectors.pool import is_connection_error
from collectors.source import (
    Reading,
    Source,
    counted_fields,
    counted_sql,
    integers,
    joined_rows,
    joined_sql,
    number,
    picker,
    query,
    split_counted,
    sql_list,
)

NAME = "global_status"

# The statement counters that matter for throughput; the other ~150 Com_ counters are left out.
KEPT_COM = ("Com_commit", "Com_rollback", "Com_begin", "Com_select", "Com_insert", "Com_insert_select",
            "Com_update", "Com_update_multi", "Com_delete", "Com_delete_multi", "Com_replace",
            "Com_replace_select", "Com_load", "Com_call_procedure", "Com_stmt_prepare", "Com_stmt_execute",
            "Com_xa_commit", "Com_xa_rollback", "Com_lock_tables", "Com_set_option")
# Families nobody graphs (rare Com_ statements, TLS, Galera, performance_schema "lost" counters,
# feature usage): left out, which halves the rows a poll parses (parsing is the collector's main
# CPU cost at fleet scale). The server filters them where it reads them cheaply.
LEFT_OUT = ("Com_", "Ssl_", "wsrep", "Performance_schema_", "Feature_")
STATUS_FILTER = (
    "VARIABLE_NAME NOT REGEXP '^({})'".format("|".join(LEFT_OUT))
    + f" OR VARIABLE_NAME IN ({sql_list(KEPT_COM)})"
)
# The rows one by one: servers without a status table, and the fallback.
GLOBAL_STATUS_SQL = f"SHOW GLOBAL STATUS WHERE {STATUS_FILTER}"
# MariaDB and MySQL 5.1.12-5.6, as one text (collectors.source.joined_rows); names in capitals there.
IS_STATUS_JOINED_SQL = joined_sql("VARIABLE_NAME, VARIABLE_VALUE",
                                  f"FROM information_schema.GLOBAL_STATUS WHERE {STATUS_FILTER}")
# MySQL 5.7+ (whose information_schema table is off by default), as one text.
PFS_STATUS_JOINED_SQL = joined_sql("VARIABLE_NAME, VARIABLE_VALUE",
                                   f"FROM performance_schema.global_status WHERE {STATUS_FILTER}")
# MariaDB 10.5.2+: performance_schema's table costs a third of information_schema's, which adds the few it lacks.
MARIADB_PFS_SINCE = (10, 5, 2)
# MariaDB's performance_schema.global_status sums these over the instrumented threads' own counts only:
# Threads_running 0 under any load, Memory_used ~1/500 of SHOW GLOBAL STATUS's (10.11: 707,760 against
# 380,705,384); the only two of its ~400 rows that differ (docs/sources.md). information_schema's are the server's.
SERVER_WIDE = ("Threads_running", "Memory_used")
NOT_IN_PFS = (*KEPT_COM, "Slave_heartbeat_period", "Slave_received_heartbeats", "Slave_retried_transactions",
              "Slave_running", *SERVER_WIDE)
MARIADB_PFS_PARTS = (
    counted_sql("VARIABLE_NAME, VARIABLE_VALUE",
                f"FROM performance_schema.global_status WHERE VARIABLE_NAME NOT IN ({sql_list(SERVER_WIDE)})"),
    counted_sql("VARIABLE_NAME, VARIABLE_VALUE",
                f"FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ({sql_list(NOT_IN_PFS)})"),
)
MARIADB_PFS_STATUS_SQL = "SELECT " + ", ".join(MARIADB_PFS_PARTS)  # also a part of the poll's shared statement
LEFT_OUT_NAMES = re.compile("^({})".format("|".join(LEFT_OUT)), re.IGNORECASE)
# The status variables that are levels, not running totals (docs/metrics.md, "Levels and running totals").
GAUGES = re.compile(
    r"^(Threads_(running|connected|cached)|Threadpool_\w*threads"
    r"|Open_\w+|Slave_open_temp_tables|Replica_open_temp_tables|Slaves_connected|Replicas_connected"
    r"|Slaves_running|Slave_heartbeat_period|Replica_heartbeat_period"
    r"|Max_used_connections|Memory_used\w*|Max_memory_used|Global_connection_memory|Prepared_stmt_count|Uptime\w*"
    r"|Ongoing_\w+_count|Table_open_cache_active_instances|Tmp_space_used|Max_tmp_space_used"
    r"|Error_log_buffered_(bytes|events)|Error_log_latest_write|Last_query_cost|Compression_level"
    r"|Innodb_buffer_pool_(pages_(data|dirty|free|misc|total|old|latched)|bytes_(data|dirty)|load_incomplete"
    r"|resize_status_(code|progress))"
    r"|Innodb_(history_list_length|row_lock_current_waits|row_lock_time_avg|row_lock_time_max|page_size"
    r"|checkpoint_age|checkpoint_max_age|mem_\w+|num_open_files|current_row_locks|max_trx_id"
    r"|oldest_view_low_limit_trx_id|purge_trx_id|purge_undo_no|lsn_\w+|available_undo_logs"
    r"|undo_tablespaces_\w+|onlineddl_\w+|async_\w+_(queue_size|tasks_running)"
    r"|redo_log_(logical_size|physical_size|capacity_resized|uuid)"
    r"|encryption_rotation_estimated_iops|encryption_key_rotation_list_length|descriptors_memory|read_views_memory"
    r"|ibuf_(size|free_list|segment_size))"
    r"|\w*_pending\w*|Key_blocks_(not_flushed|unused|used|warm)"
    r"|Aria_pagecache_blocks_(not_flushed|unused|used)"
    r"|Qcache_(free_memory|free_blocks|queries_in_cache|total_blocks)"
    r"|Tc_log_(max_pages_used|page_size)|Acl_\w+|Ssl_session_cache_size"
    r"|Rpl_semi_sync_\w+_(clients|wait_sessions|avg_wait_time|avg_wait_time_usec)"
    r"|Binlog_snapshot_position|Mysqlx_(worker_threads\w*|sessions|connections_active|port|compression_level)"
    r"|Delayed_insert_threads|Not_flushed_delayed_rows"
    r"|wsrep_(?!(received|replicated|local_commits|local_cert_failures|local_bf_aborts|flow_control_\w+|"
    r"\w+_bytes)$)\w+)$"
)
RESET_MARKERS = ("Uptime", "Uptime_since_flush_status")


KEPT_UPPER = frozenset(name.upper() for name in KEPT_COM)

# NAME IN CAPITALS -> Name as SHOW GLOBAL STATUS spells it (metric names keep that spelling);
# learnt from one SHOW GLOBAL STATUS per process, again whenever a new name turns up.
SPELLING: dict[str, str] = {}


@lru_cache(maxsize=4096)  # the same few hundred names every poll
def is_gauge(name: str) -> bool:
    return bool(GAUGES.match(name))


def joined_status_sql(info: ServerInfo) -> str | None:
    """The status table this server has, read as one text; None: only SHOW GLOBAL STATUS."""
    if info.flavor == "mariadb" or info.version_tuple < (5, 7, 0):
        return IS_STATUS_JOINED_SQL
    return PFS_STATUS_JOINED_SQL if info.performance_schema else None


def reads_pfs_status(info: ServerInfo) -> bool:
    return info.flavor == "mariadb" and info.performance_schema and info.version_tuple >= MARIADB_PFS_SINCE


def read_status(conn: pymysql.Connection, info: ServerInfo) -> list[tuple]:
    """(name, value text) rows, names spelled as SHOW GLOBAL STATUS spells them."""
    if reads_pfs_status(info):
        rows = read_mariadb_pfs_status(conn)
        if rows is not None:
            return spelled(conn, rows)
    sql = joined_status_sql(info)
    if sql is None:
        return query(conn, GLOBAL_STATUS_SQL)
    try:
        rows = joined_rows(conn, sql, GLOBAL_STATUS_SQL)
    except pymysql.MySQLError as exc:
        if is_connection_error(exc):
            raise
        return query(conn, GLOBAL_STATUS_SQL)  # no such table here (MySQL < 5.1.12, disabled)
    return spelled(conn, rows)


def read_mariadb_pfs_status(conn: pymysql.Connection) -> list[tuple] | None:
    """Both texts' rows, the left-out families dropped; None when a text does not add up (read otherwise)."""
    try:
        row = query(conn, MARIADB_PFS_STATUS_SQL)[0]
    except pymysql.MySQLError as exc:
        if is_connection_error(exc):
            raise
        return None  # a missing grant on performance_schema: the information_schema read then
    return mariadb_pfs_rows(row)


def mariadb_pfs_rows(row: tuple) -> list[tuple] | None:
    pfs, by_name = (split_counted(text) for text in row)
    if not pfs or by_name is None:
        return None  # an empty performance_schema table (turned off since the connection's check), a cut text
    rows = pfs + by_name
    return [(name, text) for name, text in rows if not LEFT_OUT_NAMES.match(name) or name.upper() in KEPT_UPPER]


def spelled(conn: pymysql.Connection, rows: list[tuple]) -> list[tuple]:
    try:
        return [(SPELLING[name.upper()], text) for name, text in rows]
    except KeyError:
        plain = query(conn, GLOBAL_STATUS_SQL)
        SPELLING.update({name.upper(): name for name, _ in plain})
        for name, _ in rows:  # a name SHOW does not list keeps the table's spelling: asked once
            SPELLING.setdefault(name.upper(), name)
        return plain


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    return reading(numeric(read_status(conn, info)), conn=conn, info=info)


def shared(info: ServerInfo) -> tuple[str, ...]:
    """The two status texts, and the transaction counter where the server has one on."""
    if not reads_pfs_status(info):
        return ()
    counter = transactions.part(info.flavor, info.version_tuple, info.tps_basis)
    return MARIADB_PFS_PARTS + ((counter,) if counter else ())


def from_shared(texts: tuple, conn: pymysql.Connection, info: ServerInfo) -> Reading | None:
    planned = planned_values(texts[:2])
    values, counters = planned if planned is not None else (None, None)
    if values is None:
        rows = mariadb_pfs_rows(texts[:2])
        if rows is None:
            return None
        values = numeric(spelled(conn, rows))
    counter = transactions.from_part(texts[2], info.tps_basis) if len(texts) > 2 else None
    return reading(values, counters, conn=conn, info=info, counter=counter)


@dataclass(frozen=True)
class StatusPlan:
    """What to keep of one list of status names (a server sends the same list every poll), as SHOW spells it."""

    ints: Callable[[Sequence], tuple]  # the texts that held integers when the plan was made
    int_names: tuple[str, ...]
    int_counters: frozenset[str]  # those of int_names that are counters (not is_gauge)
    decimals: tuple[tuple[int, str], ...]  # (position, name) of the texts that held other numbers
    words: tuple[tuple[int, str, str], ...]  # (position, name, text) of those that held no number
    word_texts: Callable[[Sequence], tuple]  # the texts at the words' positions
    same_words: tuple[str, ...]  # what they were: most polls, so none is parsed


# The names of both texts -> their plan: the filter, the spelling and the integer parse of ~400 rows
# a poll, done row by row in Python, were most of the CPU of reading the status.
PLANS: dict[tuple[str, ...], StatusPlan] = {}
MAX_PLANS = 256  # distinct lists (versions, plugins): past this the plans are made again


def planned_values(texts: tuple) -> tuple[dict[str, int | float], frozenset[str]] | None:
    """The values numeric(spelled(mariadb_pfs_rows(texts))) gives, and which are counters, by the names'
    plan; None: ask those."""
    pfs, by_name = (counted_fields(text, 2) for text in texts)
    if not pfs or by_name is None:
        return None
    fields = pfs + by_name
    names, values = tuple(fields[0::2]), fields[1::2]
    plan = known_plan(names) or make_plan(names, values)
    if plan is None:
        return None
    try:
        found: dict[str, int | float] = dict(zip(plan.int_names, integers(plan.ints(values)), strict=True))
    except ValueError:  # a value that was an integer is not now: its plan is made again
        forget_plan(names)
        return None
    # The same word is still no number: only the decimals and another text are parsed.
    changed = () if plan.word_texts(values) == plan.same_words else tuple(
        (position, name) for position, name, word in plan.words if values[position] != word)
    more = []
    for position, name in plan.decimals + changed:
        value = decimal(values[position])
        if value is not None:
            found[name] = value
            if not is_gauge(name):
                more.append(name)
    return found, counters_with(plan.int_counters, more)


# The names last looked up and their plan: a fleet's servers of one version send the same list, and comparing a
# poll's ~430 new name texts with it costs a fifth of hashing them all for PLANS (some 16 us a poll).
LAST_PLAN: tuple[tuple[str, ...], StatusPlan | None] = ((), None)


def known_plan(names: tuple[str, ...]) -> StatusPlan | None:
    global LAST_PLAN
    last_names, plan = LAST_PLAN  # one read: the pair stays whole whichever thread sets it
    if names != last_names:
        plan = PLANS.get(names)
        if plan is not None:
            LAST_PLAN = (names, plan)
    return plan


def forget_plan(names: tuple[str, ...]) -> None:
    global LAST_PLAN
    PLANS.pop(names, None)
    LAST_PLAN = ((), None)


def make_plan(names: tuple[str, ...], values: list[str]) -> StatusPlan | None:
    """None while a name has no SHOW spelling yet (spelled() learns it) or two rows have one name."""
    kept: list[tuple[int, str]] = []
    for i, name in enumerate(names):
        if LEFT_OUT_NAMES.match(name) and name.upper() not in KEPT_UPPER:
            continue
        spelt = SPELLING.get(name.upper())
        if spelt is None:
            return None
        kept.append((i, spelt))
    if len({spelt for _, spelt in kept}) != len(kept):
        return None
    ints = [(i, spelt) for i, spelt in kept if is_integer(values[i])]
    decimals = tuple((i, spelt) for i, spelt in kept if not is_integer(values[i]) and number(values[i]) is not None)
    words = tuple((i, spelt, values[i]) for i, spelt in kept if number(values[i]) is None)
    int_names = tuple(spelt for _, spelt in ints)
    plan = StatusPlan(picker([i for i, _ in ints]), int_names, frozenset(filterfalse(is_gauge, int_names)),
                      decimals, words, picker([i for i, _, _ in words]), tuple(word for _, _, word in words))
    if len(PLANS) >= MAX_PLANS:
        PLANS.clear()
    PLANS[names] = plan
    return plan


def decimal(text: str) -> int | float | None:
    """number() of a status text: float() at once where int() must fail (a point in it), not after the ValueError
    that number() raises and catches, which for the few decimals of every poll was a tenth of the status's read."""
    if "." not in text:
        return number(text)
    try:
        return float(text)
    except ValueError:
        return None


def is_integer(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def reading(values: dict[str, int | float], counters: frozenset[str] | None = None, *,
            conn: pymysql.Connection, info: ServerInfo, counter: dict[str, int] | None = None) -> Reading:
    """counters: the names of values that are counters, if known; counter: the transaction counter as the
    shared statement read it (None: read it now)."""
    if counters is None:
        counters = frozenset(name for name in values if not is_gauge(name))
    ibuf_pages(values)
    # Derived counters: their deltas are the sums of their parts' deltas.
    values[transactions.EXPLICIT] = values.get("Com_commit", 0) + values.get("Com_rollback", 0)
    values["qps"] = values.get("Questions", values.get("Queries", 0))
    refused = info.tps_refused
    if counter is None:
        try:
            counter = transactions.read(conn, info.flavor, info.version_tuple, info.tps_basis)
        except transactions.Refused:  # the grant went after the basis was chosen: the note names the GRANT
            counter, refused = {}, refused | {info.tps_basis}
    values.update(counter)
    derived = [name for name in DERIVED if name in values]
    return Reading(values, counters_with(counters, derived), reset_markers=RESET_MARKERS,
                   note=transactions.note(values, refused), aliases={TPS: transactions.PREFERENCE})


# MariaDB 10.11 (measured on 10.11.19) shows the change buffer's 32-bit page counts as 64-bit words: the empty
# buffer of a default server (its root page) reads Innodb_ibuf_size = 4355096838145, 1014 * 2**32 + 1. No change
# buffer reaches 2**32 pages (64 TiB of 16 KiB pages): the low 32 bits are the count (1, with a segment of
# 2 = size + free list 0 + its header page, as InnoDB sums them; INNODB_METRICS ibuf_size says 1 too).
IBUF_PAGES = ("Innodb_ibuf_size", "Innodb_ibuf_free_list", "Innodb_ibuf_segment_size")
LOW_WORD = 2**32 - 1


def ibuf_pages(values: dict[str, int | float]) -> None:
    for name in IBUF_PAGES:
        value = values.get(name)
        if value is not None and value > LOW_WORD:
            values[name] = int(value) & LOW_WORD


DERIVED = ("qps", *transactions.PREFERENCE)  # counters reading() adds to the values
# (counters, more counters) -> their union, the same frozenset every poll of a server's list of names: the delta
# engine then knows the reading's shape by identity, not by comparing ~300 names (nor building them again).
UNIONS: dict[tuple[frozenset[str], tuple[str, ...]], frozenset[str]] = {}
MAX_UNIONS = 1024  # distinct lists: past this they are made again


def counters_with(counters: frozenset[str], more: Sequence[str]) -> frozenset[str]:
    key = (counters, tuple(more))
    union = UNIONS.get(key)
    if union is None:
        if len(UNIONS) >= MAX_UNIONS:
            UNIONS.clear()
        union = UNIONS[key] = counters.union(more)
    return union


def numeric(rows: list[tuple]) -> dict[str, int | float]:
    """Every numeric status value; text ones (ON, file names...) are left out."""
    values: dict[str, int | float] = {}
    for name, text in rows:
        try:
            values[name] = int(text)  # most values: the fast path of number()
        except (ValueError, TypeError):
            value = number(text)
            if value is not None:
                values[name] = value
    return values


METRICS = (
    Metric.counter(TPS, "transactions", "every transaction, by the best counter the server has on"),
    Metric.counter(transactions.TRX_SUMMARY, "transactions", "performance_schema's transaction summary, COUNT_STAR"),
    Metric.counter(transactions.INNODB_TRX, "transactions", "INNODB_METRICS trx_rw/ro/nl_ro_commits"),
    Metric.counter(transactions.EXPLICIT, "transactions", "Com_commit + Com_rollback: explicit transactions only"),
    Metric.counter("qps", "statements", "Questions (Queries where there is no Questions)"),
    Metric.counter("Questions", "statements", "statements the clients sent"),
    Metric.counter("Com_commit", "statements", "COMMIT statements"),
    Metric.counter("Com_rollback", "statements", "ROLLBACK statements"),
    Metric.gauge("Threads_running", "threads", "threads running a statement"),
    Metric.gauge("Threads_connected", "threads", "open connections"),
    Metric.gauge("Threads_cached", "threads", "threads in the thread cache"),
    Metric.counter("Threads_created", "threads", "threads created to serve connections"),
    Metric.gauge("Innodb_checkpoint_age", "bytes", "redo written since the last checkpoint (MariaDB)"),
    Metric.gauge("Innodb_checkpoint_max_age", "bytes", "the checkpoint age InnoDB flushes to stay under (MariaDB)"),
    Metric.gauge("Innodb_buffer_pool_bytes_data", "bytes", "bytes of data in the buffer pool"),
    Metric.gauge("Innodb_buffer_pool_bytes_dirty", "bytes", "dirty bytes in the buffer pool"),
    # The change buffer (MariaDB 10.5-10.11; MySQL has innodb_metrics:ibuf_size): pages, never bytes. Buffering
    # nothing (innodb_change_buffering=none, MariaDB's default from 10.6.7; ignored from 10.9), its tree is its
    # root alone: a size of 1 and a segment of pages left free by past merges. Gone in MariaDB 11.0.
    Metric.gauge("Innodb_ibuf_size", "pages", "the change buffer's tree (1 = empty: its root page alone, as "
                 "whenever nothing is buffered: innodb_change_buffering=none, MariaDB 10.9+)"),
    Metric.gauge("Innodb_ibuf_free_list", "pages", "pages the change buffer's segment holds free: space once "
                 "used, not buffered changes"),
    Metric.gauge("Innodb_ibuf_segment_size", "pages", "the change buffer's segment: its tree, its free list and a "
                 "header page; it does not shrink when the buffer empties"),
)


SOURCE = Source(
    name=NAME,
    help="SHOW GLOBAL STATUS: tps (every transaction where the server counts them, docs/metrics.md), "
         "tps_explicit (Com_commit + Com_rollback), qps (Questions), Threads_running, InnoDB counters",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 1, 0), "mariadb": (5, 1, 0)},
    interval=None,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_shared,
)
