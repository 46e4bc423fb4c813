# No statement when the poll's global status (MariaDB) or InnoDB metrics read has it; else
# SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len' (or status, or INNODB STATUS).
"""InnoDB history list length: undo not yet purged, the purge-lag view's main line.

Most polls spend no statement on it: MariaDB's global status (read every poll) carries
it as Innodb_history_list_length, the same trx_sys figure INNODB_METRICS shows, and an
InnoDB metrics read of the same poll carries trx_rseg_history_len. Asking INNODB_METRICS
for its one row makes the server build the whole table (0.3-1 ms under load).
Otherwise, where it is read, best first:
1. INNODB_METRICS trx_rseg_history_len when enabled (column STATUS on MySQL and MariaDB
   <= 10.4, ENABLED on MariaDB 10.5+);
2. MariaDB's status variable Innodb_history_list_length;
3. SHOW ENGINE INNODB STATUS "History list length N" (MySQL 5.5, or the counter disabled).
"""

import re

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.source import Reading, Source, number, query

NAME = "history_length"

# One row of INNODB_METRICS; the enabled column differs by flavor/version.
METRICS_STATUS_SQL = ("SELECT COUNT, STATUS = 'enabled' FROM information_schema.INNODB_METRICS"
                      " WHERE NAME = 'trx_rseg_history_len'")
METRICS_ENABLED_SQL = ("SELECT COUNT, ENABLED FROM information_schema.INNODB_METRICS"
                       " WHERE NAME = 'trx_rseg_history_len'")
# MariaDB exports the same number as a status variable.
MARIADB_STATUS_SQL = "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'"
# The InnoDB monitor text: expensive, the last resort (MySQL 5.5 has nothing else).
INNODB_STATUS_SQL = "SHOW ENGINE INNODB STATUS"

STATUS_NAME = "Innodb_history_list_length"  # in global_status's values
METRICS_NAME = "innodb_metrics:trx_rseg_history_len"  # in innodb_metrics's values, when enabled
HISTORY_LINE = re.compile(r"^History list length (\d+)", re.MULTILINE)
ENABLE_HINT = "SET GLOBAL innodb_monitor_enable = 'trx_rseg_history_len'"


def has_innodb_metrics(info: ServerInfo) -> bool:
    return info.version_tuple >= ((10, 0, 0) if info.flavor == "mariadb" else (5, 6, 0))


def metrics_sql(info: ServerInfo) -> str:
    if info.flavor == "mariadb" and info.version_tuple >= (10, 5, 0):
        return METRICS_ENABLED_SQL
    return METRICS_STATUS_SQL


def parse_innodb_status(text: str) -> int | None:
    match = HISTORY_LINE.search(text)
    return int(match.group(1)) if match else None


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    note = ""
    if has_innodb_metrics(info):
        rows = query(conn, metrics_sql(info))
        if rows and rows[0][1]:
            return gauge(int(rows[0][0]))
        note = f"trx_rseg_history_len is disabled in INNODB_METRICS ({ENABLE_HINT}); "
    if info.flavor == "mariadb":
        rows = query(conn, MARIADB_STATUS_SQL)
        length = number(rows[0][1]) if rows else None
        if length is not None:
            return gauge(length, note + "read from status Innodb_history_list_length")
    rows = query(conn, INNODB_STATUS_SQL)
    length = parse_innodb_status(rows[0][2]) if rows else None
    if length is None:
        raise ValueError("SHOW ENGINE INNODB STATUS has no 'History list length' line")
    return gauge(length, note + "read from SHOW ENGINE INNODB STATUS")


def derive(readings: dict[str, Reading], info: ServerInfo) -> Reading | None:
    """The length from this poll's global status (MariaDB) or InnoDB metrics reading, if it has it."""
    status = readings.get("global_status")
    if info.flavor == "mariadb" and status and STATUS_NAME in status.values:
        return gauge(status.values[STATUS_NAME])
    metrics = readings.get("innodb_metrics")
    if metrics and METRICS_NAME in metrics.values:
        return gauge(metrics.values[METRICS_NAME])
    return None


def gauge(length: int | float, note: str = "") -> Reading:
    return Reading({"history_list_length": length}, frozenset(), note=note)


METRICS = (Metric.gauge("history_list_length", "undo log units", "InnoDB history list length: undo not purged yet"),)


SOURCE = Source(
    name=NAME,
    help="InnoDB history list length (history_list_length, gauge)",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 1, 0), "mariadb": (5, 1, 0)},
    interval=None,
    collect=collect,
    metrics=METRICS,
    derive=derive,
)
