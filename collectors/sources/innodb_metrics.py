# SELECT NAME, TYPE, COUNT, <enabled> FROM information_schema.INNODB_METRICS: enabled InnoDB counters.
"""InnoDB metrics counters that are enabled, and which purge counters are not (with the SQL to enable them)."""

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.monitor_enable import config_hint, statement
from collectors.source import Reading, Source, counted_sql, from_counted, joined_rows, joined_sql

NAME = "innodb_metrics"

# Enabled rows, plus the purge counters whatever their state so we can say which are off.
PURGE_FILTER = "(NAME LIKE 'purge%' OR NAME LIKE 'trx_undo%' OR NAME = 'trx_rseg_history_len')"
METRICS_STATUS_FROM = f"FROM information_schema.INNODB_METRICS WHERE STATUS = 'enabled' OR {PURGE_FILTER}"
METRICS_ENABLED_FROM = f"FROM information_schema.INNODB_METRICS WHERE ENABLED OR {PURGE_FILTER}"
METRICS_STATUS_SQL = f"SELECT NAME, TYPE, COUNT, STATUS = 'enabled' {METRICS_STATUS_FROM}"
METRICS_ENABLED_SQL = f"SELECT NAME, TYPE, COUNT, ENABLED {METRICS_ENABLED_FROM}"
# The same rows as one text (collectors.source.joined_rows); the enabled column reads "1"/"0".
METRICS_STATUS_JOINED_SQL = joined_sql("NAME, TYPE, COUNT, STATUS = 'enabled'", METRICS_STATUS_FROM)
METRICS_ENABLED_JOINED_SQL = joined_sql("NAME, TYPE, COUNT, ENABLED", METRICS_ENABLED_FROM)
# The same texts as a part of the poll's shared statement, on the polls it is due (collectors.shared_read).
METRICS_STATUS_COUNTED = counted_sql("NAME, TYPE, COUNT, STATUS = 'enabled'", METRICS_STATUS_FROM)
METRICS_ENABLED_COUNTED = counted_sql("NAME, TYPE, COUNT, ENABLED", METRICS_ENABLED_FROM)

# TYPE 'value' is a level (e.g. trx_rseg_history_len); the others are running totals,
# except where the TYPE says otherwise than the counter's description in the manuals:
# these are levels (current pending I/O, locks held, tables being altered)...
LEVEL_NAMES = frozenset((
    "os_pending_reads", "os_pending_writes", "os_log_pending_fsyncs", "os_log_pending_writes", "ibuf_size",
    "lock_rec_locks", "lock_table_locks", "lock_threads_waiting", "trx_active_transactions",
    "ddl_pending_alter_table", "ddl_online_create_index", "ddl_background_drop_indexes",
    "ddl_background_drop_tables",
))
# ...and these, TYPE 'value', only ever grow (deadlocks, lock wait timeouts, checkpoints since boot).
TOTAL_NAMES = frozenset(("lock_deadlocks", "lock_timeouts", "log_checkpoints", "purge_stop_count",
                         "purge_resume_count"))
GAUGE_TYPES = ("value",)


def is_level(name: str, kind: str) -> bool:
    if name in LEVEL_NAMES:
        return True
    return kind in GAUGE_TYPES and name not in TOTAL_NAMES


def metrics_sql(info: ServerInfo) -> tuple[str, str]:
    """The joined statement and its row-by-row fallback for this server's column names."""
    if has_enabled_column(info):
        return METRICS_ENABLED_JOINED_SQL, METRICS_ENABLED_SQL
    return METRICS_STATUS_JOINED_SQL, METRICS_STATUS_SQL


def has_enabled_column(info: ServerInfo) -> bool:
    return info.flavor == "mariadb" and info.version_tuple >= (10, 5, 0)


def enable_hint(disabled: list[str]) -> str:
    """The statements that turn the missing purge counters on (wildcards keep it short)."""
    patterns = []
    for prefix in ("purge", "trx_undo"):
        if any(name.startswith(prefix) for name in disabled):
            patterns.append(f"{prefix}%")
    patterns += [name for name in disabled if not name.startswith(("purge", "trx_undo"))]
    sql = "; ".join(statement(p) for p in patterns)
    return (f"purge counters disabled: {', '.join(disabled)}. Enable with: {sql} "
            f"(and to keep them after a restart, {config_hint(patterns)})")


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    return reading(joined_rows(conn, *metrics_sql(info)))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (METRICS_ENABLED_COUNTED if has_enabled_column(info) else METRICS_STATUS_COUNTED,)


def reading(rows: list[tuple]) -> Reading:
    values: dict[str, int] = {}
    counters = set()
    disabled = []
    for name, kind, count, enabled in rows:
        if not int(enabled):
            disabled.append(name)
            continue
        key = f"innodb_metrics:{name}"
        values[key] = int(count)
        if not is_level(name, kind):
            counters.add(key)
    return Reading(values, frozenset(counters), note=enable_hint(disabled) if disabled else "")


METRICS = (
    Metric.counter("innodb_metrics:", "value", "an enabled INNODB_METRICS counter; levels are gauges"),
    # The one level of the family whose unit the server does not leave open: pages (its TYPE misleads too).
    Metric.gauge("innodb_metrics:ibuf_size", "pages", "the change buffer's tree (1 = empty: its root page alone, "
                 "as whenever nothing is buffered: innodb_change_buffering=none, MySQL 8.4's default)"),
)


SOURCE = Source(
    name=NAME,
    help="information_schema.INNODB_METRICS enabled counters: innodb_metrics:<NAME>",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 6, 0), "mariadb": (10, 0, 0)},
    # The server builds the whole table to answer (0.3-1.7 ms, ~10-15 % of a poll's server time);
    # its purge counters feed the purge view, whose lag builds over minutes: once a minute is enough.
    # The history length every poll comes from global status (history_length.derive).
    interval=60,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_counted(reading),
)
