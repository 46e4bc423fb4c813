# No statement on MySQL 8.0.30+ (the poll's global status has both LSNs); else SELECT NAME, COUNT FROM
# information_schema.INNODB_METRICS WHERE NAME IN ('log_lsn_current', ...), else SHOW ENGINE INNODB STATUS.
"""MySQL's redo checkpoint age: how much redo the next checkpoint must cover, against the log's capacity.

MariaDB exports it as status (Innodb_checkpoint_age, Innodb_checkpoint_max_age: stored by
global_status), so this source is MySQL's only. Where it is read, best first:
1. MySQL 8.0.30+: status Innodb_redo_log_current_lsn and Innodb_redo_log_checkpoint_lsn, on by
   default and already in the poll's global status reading: every poll, no statement;
2. INNODB_METRICS log_lsn_current and log_lsn_last_checkpoint (MySQL 5.6+, when the log
   module is on: SET GLOBAL innodb_monitor_enable = 'module_log');
3. SHOW ENGINE INNODB STATUS "Log sequence number" and "Last checkpoint at" (MySQL 5.5, or the
   counters off): an expensive statement, hence this source's longer interval before 8.0.30.
Series: redo.checkpoint_age_bytes (gauge) and redo.lsn (a counter: redo bytes written per second).
"""

import re
from collections.abc import Mapping

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.source import Reading, Source, number, query, sql_list
from collectors.sources.history_length import has_innodb_metrics

NAME = "redo_log"
METRICS_SQL = ("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE {enabled}"
               " AND NAME IN ('log_lsn_current', 'log_lsn_last_checkpoint')")
INNODB_STATUS_SQL = "SHOW ENGINE INNODB STATUS"
LSN_LINE = re.compile(r"^Log sequence number\s+(\d+)(?:\s+(\d+))?$", re.MULTILINE)
CHECKPOINT_LINE = re.compile(r"^Last checkpoint at\s+(\d+)(?:\s+(\d+))?$", re.MULTILINE)
ENABLE_HINT = "SET GLOBAL innodb_monitor_enable = 'module_log'"
# MySQL 8.0.30 made both LSNs status variables (with the dynamic redo log): the current one and the checkpoint's.
STATUS_SINCE = (8, 0, 30)
STATUS_LSNS = ("Innodb_redo_log_current_lsn", "Innodb_redo_log_checkpoint_lsn")
STATUS_SQL = f"SHOW GLOBAL STATUS WHERE Variable_name IN ({sql_list(STATUS_LSNS)})"


def lsn(match: re.Match | None) -> int | None:
    """An LSN as printed: one number, or (MySQL 5.1's builtin InnoDB) a high and a low 32-bit word."""
    if match is None:
        return None
    high, low = match.group(1), match.group(2)
    return int(high) if low is None else (int(high) << 32) + int(low)


def parse_innodb_status(text: str) -> tuple[int, int] | None:
    current, checkpoint = lsn(LSN_LINE.search(text)), lsn(CHECKPOINT_LINE.search(text))
    return None if current is None or checkpoint is None else (current, checkpoint)


def metrics_sql(info: ServerInfo) -> str:
    # The enabled column is ENABLED on MariaDB 10.5+ (which the page reads from status instead).
    mariadb_105 = info.flavor == "mariadb" and info.version_tuple >= (10, 5, 0)
    return METRICS_SQL.format(enabled="ENABLED" if mariadb_105 else "STATUS = 'enabled'")


def from_metrics(conn: pymysql.Connection, info: ServerInfo) -> tuple[int, int] | None:
    if not has_innodb_metrics(info):
        return None
    found = {name: int(count) for name, count in query(conn, metrics_sql(info))}
    if len(found) < 2:
        return None
    return found["log_lsn_current"], found["log_lsn_last_checkpoint"]


def has_status_lsns(flavor: str, version: tuple[int, int, int]) -> bool:
    """MySQL 8.0.30+: the LSNs are in every poll's global status, so the source costs nothing and runs every poll."""
    return flavor == "mysql" and version >= STATUS_SINCE


def from_status(values: Mapping[str, object]) -> tuple[int, int] | None:
    """(current, checkpoint) LSN from status values by name; None when either is missing."""
    current, checkpoint = (number(values.get(name)) for name in STATUS_LSNS)
    return None if current is None or checkpoint is None else (int(current), int(checkpoint))


def derive(readings: dict[str, Reading], info: ServerInfo) -> Reading | None:
    """MySQL 8.0.30+: the LSNs of this poll's global status reading, no statement."""
    status = readings.get("global_status")
    if status is None or not has_status_lsns(info.flavor, info.version_tuple):
        return None
    pair = from_status(status.values)
    return None if pair is None else lsn_reading(*pair)


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    if has_status_lsns(info.flavor, info.version_tuple):
        pair = from_status(dict(query(conn, STATUS_SQL)))
        if pair is not None:
            return lsn_reading(*pair)
    pair, note = from_metrics(conn, info), ""
    if pair is None:
        rows = query(conn, INNODB_STATUS_SQL)
        pair = parse_innodb_status(rows[0][2]) if rows else None
        if pair is None:
            raise ValueError("SHOW ENGINE INNODB STATUS has no 'Log sequence number' / 'Last checkpoint at' lines")
        note = "read from SHOW ENGINE INNODB STATUS" + (
            f"; cheaper with the log counters on ({ENABLE_HINT})" if info.version_tuple >= (5, 6, 0) else "")
    return lsn_reading(*pair, note=note)


def lsn_reading(current: int, checkpoint: int, note: str = "") -> Reading:
    return Reading({"redo.checkpoint_age_bytes": current - checkpoint, "redo.lsn": current},
                   frozenset({"redo.lsn"}), note=note)


METRICS = (
    Metric.gauge("redo.checkpoint_age_bytes", "bytes", "redo written since the last checkpoint (LSN minus checkpoint)"),
    Metric.counter("redo.lsn", "bytes", "redo written (the LSN)"),
)


SOURCE = Source(
    name=NAME,
    help="MySQL redo checkpoint age (redo.checkpoint_age_bytes) and redo written (redo.lsn) from status (8.0.30+), "
         "INNODB_METRICS or SHOW ENGINE INNODB STATUS; MariaDB has them as status",
    flavors=frozenset(("mysql",)),
    min_version={"mysql": (5, 1, 0)},
    interval=60,  # may run SHOW ENGINE INNODB STATUS: not on every cheap poll (MySQL 8.0.30+: every poll, free)
    cheap_on=has_status_lsns,
    collect=collect,
    metrics=METRICS,
    derive=derive,
)
