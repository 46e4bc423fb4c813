"""Which statements made a wait: the digest column in which a wait class accumulates.

performance_schema's digest table (events_statements_summary_by_digest) counts no waits per event, on
MariaDB 10.11 as on MySQL 8.0: a wait is tied to the interval's statements by the column that holds the time
or the work behind it, and the Statements tab ranks by that column. Measured on MariaDB 10.11: 1,962 SELECTs
blocked by another session's LOCK TABLES ... WRITE waited 426.72 s in MDL_context::COND_wait_status and had
427.03 s of SUM_LOCK_TIME (the server sets it once the tables are open and locked, metadata locks included);
sysbench's oltp_update_non_index on 10 rows, 32 threads, waited 2,581 s in wait/io/table/sql/handler (row
locks) with 2,676 s of statement time and 10.8 s of lock time.
"""

from dataclasses import dataclass

from dashboards.analysis.topwaits import CONDITION_PREFIX


@dataclass(frozen=True)
class Basis:
    order: str  # the Statements tab's ?order=
    why: str  # said where the ranking is shown


TIME = Basis("time", "a statement's total time holds every wait it made, and the digest table has no column "
                     "for this wait alone")
ROW_LOCKS = Basis("time", "InnoDB row-lock waits and row reads happen inside the storage engine calls this "
                          "instrument times, and count in a statement's total time, not in its lock time")
LOCK = Basis("lock", "a statement's lock time (SUM_LOCK_TIME) runs from its start until its tables are open and "
                     "locked, so it holds its waits for metadata locks, table locks, the global read lock and "
                     "table flushes")
EXAMINED = Basis("rows_examined", "InnoDB reads a data file page for a row that is not in the buffer pool: the "
                                  "statements that read the most rows make those reads")
AFFECTED = Basis("rows_affected", "the redo log and the binary log are written for the rows statements change, "
                                  "and flushed at their commit")
TMP_DISK = Basis("tmp_disk", "on-disk temporary tables are Aria (MyISAM on MySQL) files: the statements that "
                             "created temporary tables on disk made that file I/O")

# Waits a session makes while opening and locking its tables (before SUM_LOCK_TIME's end).
METADATA_LOCKS = CONDITION_PREFIX + "sql/MDL_context::COND_wait_status"
OPENING = frozenset({METADATA_LOCKS} | {CONDITION_PREFIX + "sql/" + name for name in (
    "COND_global_read_lock", "COND_refresh", "TABLE_SHARE::tdc.COND_release")})
BY_PREFIX = (
    ("wait/lock/table/", LOCK), ("wait/lock/metadata/", LOCK), ("wait/io/table/", ROW_LOCKS),
    ("wait/io/file/innodb/innodb_data_file", EXAMINED), ("wait/io/file/innodb/innodb_log_file", AFFECTED),
    ("wait/io/file/sql/binlog", AFFECTED), ("wait/io/file/aria/", TMP_DISK), ("wait/io/file/myisam/", TMP_DISK),
)


# The digest sums (store.statements.COUNTERS) each ranking is by.
COLUMNS = {"time": "time_ps", "lock": "lock_ps", "rows_examined": "rows_examined", "rows_affected": "rows_affected",
           "tmp_disk": "tmp_disk_tables"}


def basis(event: str) -> Basis:
    """The Statements tab's ranking that names the statements behind a wait event, and why."""
    if event in OPENING:
        return LOCK
    return next((found for prefix, found in BY_PREFIX if event.startswith(prefix)), TIME)
