"""The InnoDB pressure page's series: for each line, the metrics that can draw it (best first), where
they come from and what to enable when none is collected; the DML line summed per poll. Pure: no reads."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from collectors import monitor_enable
from store.breaks import downsample_with_breaks
from store.points import datetimes

# The INNODB_METRICS entries that turn a line's counters on: the purge counters as the purge page and Test
# connection name them (monitor_enable.PURGE_ENTRIES), not module_purge, which said another thing for the same.
ENABLE_LOG, ENABLE_BUFFER, ENABLE_PURGE = ("module_log",), ("module_buffer",), monitor_enable.PURGE_ENTRIES
MIB = 2**20  # checkpoint age and capacity are drawn in MiB


@dataclass(frozen=True)
class Line:
    """One line of the page: the first candidate the server reports draws it."""

    key: str
    label: str
    row: int
    candidates: tuple[str, ...]
    origin: str
    enable: tuple[str, ...] = ()  # the INNODB_METRICS entries that turn the counter on, when it is one of its

    @property
    def enable_sql(self) -> str:
        return " ".join(f"{monitor_enable.statement(entry)};" for entry in self.enable)


LINES = [
    Line("checkpoint_age", "checkpoint age (MiB)", 1,
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


def missing_modules(lines: Sequence[Line], chosen: dict[str, str | None]) -> list[str]:
    """The INNODB_METRICS entries (modules, patterns) that would turn on what is not collected, each once, in page
    order."""
    wanted = [entry for line in lines if chosen[line.key] is None for entry in line.enable]
    return list(dict.fromkeys(wanted))


def missing_enables(lines: Sequence[Line], chosen: dict[str, str | None]) -> list[str]:
    """The statements that would turn on what is not collected, each once, in page order."""
    return [f"{monitor_enable.statement(module)};" for module in missing_modules(lines, chosen)]


@dataclass(frozen=True)
class Capacity:
    bytes: float
    origin: str


def redo_capacity(values: dict[str, float | None]) -> Capacity | None:
    """What the checkpoint age is drawn against, from the capacity metrics' values in force."""
    if max_age := values.get(MAX_AGE):
        return Capacity(max_age, "status Innodb_checkpoint_max_age (where InnoDB forces a checkpoint)")
    if redo := values.get(REDO_CAPACITY):
        return Capacity(redo, "innodb_redo_log_capacity")
    if file_size := values.get(LOG_FILE_SIZE):
        files = values.get(LOG_FILES) or 1  # MariaDB 10.5+ and MySQL 8.0.30+ have one setting, no group
        return Capacity(file_size * files, f"innodb_log_file_size x {files:g} files")
    return None


@dataclass
class Summed:
    """A line of points: the DML counters' sum."""

    ts: list
    values: list


def summed(parts: Sequence) -> Summed:
    """The parts' sum at each poll, from per-poll rates of the same polls (never from downsampled points).

    None where any part has no value: a hole in one, or a poll one of them lacks, is a hole in the sum.
    """
    if not parts:
        return Summed([], [])
    if all(p.ts == parts[0].ts for p in parts[1:]):  # the usual case: counters of one source, read together
        total = np.sum([np.array(p.values, dtype=np.float64) for p in parts], axis=0)  # None -> NaN, kept
        return Summed(list(parts[0].ts), [None if v != v else v for v in total.tolist()])
    maps = [dict(zip(p.ts, p.values, strict=True)) for p in parts]
    times = sorted(set().union(*maps))
    values = [None if any(m.get(t) is None for m in maps) else sum(m[t] for m in maps) for t in times]
    return Summed(times, values)


def summed_arrays(parts: Sequence) -> tuple[np.ndarray, np.ndarray] | None:
    """summed() of parts as arrays (store.query.SeriesArrays: Unix microseconds, NaN for a hole) when they
    share their polls, the usual case: (times, sums, NaN where any part has none); None when they do not."""
    if not parts or not all(np.array_equal(p.ts, parts[0].ts) for p in parts[1:]):
        return None
    return parts[0].ts, np.sum([np.asarray(p.values, dtype=np.float64) for p in parts], axis=0)


def downsampled(points: Summed, max_points: int) -> Summed:
    """At most max_points points keeping each bin's lowest and highest poll, and the holes (None)."""
    # Unix microseconds; through float seconds, exact to the microsecond after rounding, and fast.
    ts = np.round(np.array([t.timestamp() for t in points.ts], dtype=np.float64) * 1e6).astype(np.int64)
    return downsampled_arrays(ts, np.array(points.values, dtype=np.float64), max_points)


def downsampled_arrays(ts: np.ndarray, vals: np.ndarray, max_points: int) -> Summed:
    """downsampled() of times in Unix microseconds and values with NaN for a hole."""
    known = ~np.isnan(vals)
    holes_before = np.cumsum(~known)[known]  # a hole lies between two known polls where this count grows
    cut = np.diff(holes_before) > 0
    out_ts, out_vals = downsample_with_breaks(ts[known], vals[known], cut, max_points)
    return Summed(datetimes(out_ts), [None if v != v else v for v in out_vals.tolist()])


@dataclass(frozen=True)
class InForce:
    """A setting over a viewed range: what was in force at its end, and whether that held throughout."""

    value: float | None  # the last reading at or before the range's end; None: never read
    first: float | None  # the value in force at the range's start (or its first reading within it)
    changed: bool  # some reading within the range differs from another, or from the value before it


def in_force(before: float | None, during: Sequence[float | None], last: float | None) -> InForce:
    """before: the last reading before the range; during: its readings (or their bins' lowest and
    highest: a change shows in those too); last: the last reading at or before its end."""
    values = ([] if before is None else [before]) + [v for v in during if v is not None]
    if last is None:
        return InForce(None, None, False)
    first = values[0] if values else last
    return InForce(last, first, any(v != first for v in [*values, last]))
