"""The InnoDB pressure page's series: for each line, the metrics that can draw it (best first), where
they come from and what to enable when none is collected. Pure: names in, choices out."""

from collections.abc import Sequence
from dataclasses import dataclass

ENABLE_LOG = "SET GLOBAL innodb_monitor_enable = 'module_log';"
ENABLE_BUFFER = "SET GLOBAL innodb_monitor_enable = 'module_buffer';"
ENABLE_PURGE = "SET GLOBAL innodb_monitor_enable = 'module_purge';"
MB = 2**20


@dataclass(frozen=True)
class Line:
    """One line of the page: the first candidate the server reports draws it."""

    key: str
    label: str
    row: int
    candidates: tuple[str, ...]
    origin: str
    enable: str = ""  # the SQL that turns the counter on, when it is an INNODB_METRICS one


LINES = [
    Line("checkpoint_age", "checkpoint age (MB)", 1,
         ("Innodb_checkpoint_age", "innodb_metrics:log_lsn_checkpoint_age", "redo.checkpoint_age_bytes"),
         "MariaDB: status Innodb_checkpoint_age; MySQL: INNODB_METRICS log_lsn_checkpoint_age, else the redo_log "
         "source (Log sequence number - Last checkpoint at)", ENABLE_LOG),
    Line("dirty", "dirty pages", 2, ("Innodb_buffer_pool_pages_dirty", "innodb_metrics:buffer_pool_pages_dirty"),
         "status Innodb_buffer_pool_pages_dirty"),
    Line("free", "free pages", 2, ("Innodb_buffer_pool_pages_free", "innodb_metrics:buffer_pool_pages_free"),
         "status Innodb_buffer_pool_pages_free"),
    Line("flushed", "pages flushed /s", 3, ("Innodb_buffer_pool_pages_flushed",),
         "status Innodb_buffer_pool_pages_flushed (all flushing)"),
    Line("flush_adaptive", "adaptive flush /s", 3, ("innodb_metrics:buffer_flush_adaptive_total_pages",),
         "INNODB_METRICS buffer_flush_adaptive_total_pages (flushing to keep redo and dirty pages in bounds)",
         ENABLE_BUFFER),
    Line("flush_sync", "sync flush /s", 3, ("innodb_metrics:buffer_flush_sync_total_pages",),
         "INNODB_METRICS buffer_flush_sync_total_pages (redo full: foreground work waits for it)", ENABLE_BUFFER),
    Line("flush_background", "idle/background flush /s", 3,
         ("innodb_metrics:buffer_flush_background_total_pages",),
         "INNODB_METRICS buffer_flush_background_total_pages", ENABLE_BUFFER),
    Line("flush_lru", "LRU flush /s", 3, ("innodb_metrics:buffer_LRU_batch_flush_total_pages",),
         "INNODB_METRICS buffer_LRU_batch_flush_total_pages (flushing to free pages)", ENABLE_BUFFER),
    Line("lock_waits", "row lock waits /s", 4, ("Innodb_row_lock_waits",), "status Innodb_row_lock_waits"),
    Line("lock_current", "current row lock waits", 4, ("Innodb_row_lock_current_waits",),
         "status Innodb_row_lock_current_waits"),
    Line("purged_del", "purged delete-marked rows /s", 5, ("innodb_metrics:purge_del_mark_records",),
         "INNODB_METRICS purge_del_mark_records", ENABLE_PURGE),
    Line("purged_upd", "purged updated rows /s", 5, ("innodb_metrics:purge_upd_exist_or_extern_records",),
         "INNODB_METRICS purge_upd_exist_or_extern_records", ENABLE_PURGE),
    Line("dml_delay", "DML delay (µs)", 6, ("innodb_metrics:purge_dml_delay_usec",),
         "INNODB_METRICS purge_dml_delay_usec (the delay innodb_max_purge_lag imposes on each DML row)",
         ENABLE_PURGE),
]
# DML rows per second, the pace at which purge's work arrives: the sum of one of these sets of status
# counters. MariaDB 10.6+ has no Innodb_rows_*: its handler counters count every engine's rows.
DML_SETS = (("Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted"),
            ("Handler_write", "Handler_update", "Handler_delete"))
DML_ORIGIN = ("MySQL: status Innodb_rows_inserted + _updated + _deleted; MariaDB 10.6+ (which has no Innodb_rows_*): "
              "Handler_write + Handler_update + Handler_delete, rows of every storage engine")


def dml_set(have: set[str]) -> tuple[str, ...]:
    """The counters that give the DML rate on this server, or () if none does."""
    return next((names for names in DML_SETS if all(n in have for n in names)), ())
# Redo capacity, best first: MariaDB's own limit; MySQL 8.0.30+'s setting; files x size before.
MAX_AGE, REDO_CAPACITY = "Innodb_checkpoint_max_age", "var:innodb_redo_log_capacity"
LOG_FILE_SIZE, LOG_FILES = "var:innodb_log_file_size", "var:innodb_log_files_in_group"
MAX_PURGE_LAG, MAX_PURGE_DELAY = "var:innodb_max_purge_lag", "var:innodb_max_purge_lag_delay"


def choose(lines: Sequence[Line], have: set[str]) -> dict[str, str | None]:
    """line key -> the metric that draws it on this server (None: not collected)."""
    return {line.key: next((m for m in line.candidates if m in have), None) for line in lines}


def missing_enables(lines: Sequence[Line], chosen: dict[str, str | None]) -> list[str]:
    """The statements that would turn on what is not collected, each once, in page order."""
    wanted = [line.enable for line in lines if chosen[line.key] is None and line.enable]
    return list(dict.fromkeys(wanted))


@dataclass(frozen=True)
class Capacity:
    bytes: float
    origin: str


def redo_capacity(latest: dict[str, float | None]) -> Capacity | None:
    """What the checkpoint age is drawn against, from the newest values of the capacity metrics."""
    if latest.get(MAX_AGE):
        return Capacity(latest[MAX_AGE], "status Innodb_checkpoint_max_age (where InnoDB forces a checkpoint)")
    if latest.get(REDO_CAPACITY):
        return Capacity(latest[REDO_CAPACITY], "innodb_redo_log_capacity")
    if latest.get(LOG_FILE_SIZE):
        files = latest.get(LOG_FILES) or 1  # MariaDB 10.5+ and MySQL 8.0.30+ have one setting, no group
        return Capacity(latest[LOG_FILE_SIZE] * files, f"innodb_log_file_size x {files:g} files")
    return None


@dataclass
class Summed:
    """The sum of series at the times all of them have a value (a gap in one is a gap in the sum)."""

    ts: list
    values: list


def summed(parts: Sequence) -> Summed:
    if not parts:
        return Summed([], [])
    maps = [dict(zip(p.ts, p.values, strict=True)) for p in parts]
    times = sorted(set(maps[0]).intersection(*maps[1:]))
    values = [None if any(m[t] is None for m in maps) else sum(m[t] for m in maps) for t in times]
    return Summed(times, values)
