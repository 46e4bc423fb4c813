# SHOW GLOBAL VARIABLES WHERE Variable_name IN (...): the settings drawn as reference lines.
"""Selected server settings, stored only when they change (first poll: all of them)."""

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.source import Reading, Source, counted_sql, from_counted, number, query, sql_list

NAME = "variables"

SELECTED = (
    "innodb_max_purge_lag", "innodb_max_purge_lag_delay", "innodb_purge_threads", "innodb_purge_batch_size",
    "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_flush_log_at_trx_commit",
    "innodb_log_file_size", "innodb_log_buffer_size", "innodb_io_capacity", "innodb_io_capacity_max",
    "innodb_thread_concurrency", "innodb_flush_neighbors", "innodb_adaptive_hash_index",
    "innodb_page_cleaners", "innodb_read_io_threads", "innodb_write_io_threads", "innodb_doublewrite",
    "sync_binlog", "max_connections", "table_open_cache", "thread_cache_size", "performance_schema",
    # The redo log's capacity (the pressure page): files x size before MySQL 8.0.30, one setting since.
    "innodb_log_files_in_group", "innodb_redo_log_capacity",
)
# Named in the statement so the server sends ~20 rows, not ~600.
VARIABLES_SQL = f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({sql_list(SELECTED)})"

# MariaDB: the same rows from information_schema (names in capitals there) as a part of the poll's
# shared statement, on the polls it is due (collectors.shared_read); a SHOW cannot be a subquery.
VARIABLES_COUNTED = counted_sql(
    "VARIABLE_NAME, VARIABLE_VALUE",
    f"FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ({sql_list(SELECTED)})")

WORDS = {"ON": 1, "OFF": 0, "YES": 1, "NO": 0, "TRUE": 1, "FALSE": 0}


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    return reading(query(conn, VARIABLES_SQL))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (VARIABLES_COUNTED,) if info.flavor == "mariadb" else ()


def reading(rows: list[tuple]) -> Reading:
    """Names as SHOW spells them (information_schema has them in capitals)."""
    values: dict[str, int | float] = {}
    for name, text in rows:
        value = number(text)
        if value is None:
            value = WORDS.get(str(text).upper())
        if value is not None:
            values[f"var:{name.lower()}"] = value
    return Reading(values, frozenset(), stored_on_change=True)


METRICS = (Metric.gauge("var:", "value", "a selected global variable, stored when it changes"),)


SOURCE = Source(
    name=NAME,
    help="selected SHOW GLOBAL VARIABLES (var:<name>), stored on change",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 1, 0), "mariadb": (5, 1, 0)},
    interval=60,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_counted(reading),
)
