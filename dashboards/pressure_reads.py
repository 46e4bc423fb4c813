"""What the InnoDB pressure page reads: the settings in force over its range, and DML summed poll by poll."""

from datetime import datetime, timedelta

from dashboards import reads
from dashboards.analysis import pressure as spec
from dashboards.analysis.settings_diff import VAR_PREFIX
from dashboards.timerange import TimeRange
from store import config, levels, query
from store.query import TICK

SETTINGS = [spec.MAX_AGE, spec.REDO_CAPACITY, spec.LOG_FILE_SIZE, spec.LOG_FILES, spec.MAX_PURGE_LAG,
            spec.MAX_PURGE_DELAY]
CAPACITY = SETTINGS[:4]
# Points asked of the store for per-poll reads: more than any range has polls, so none is merged into a bin.
PER_POLL = 10**9
# The raw retention's edge moves on while the page reads: a range clipped to it starts this much later.
EDGE_MARGIN = timedelta(minutes=1)
# Settings are stored on change only: how far back the one in force is looked for (as the run reports do).
LOOKBACK = timedelta(days=400)


def readings_before(server_id: int, metrics: list[str], t: datetime, full_since: datetime) -> dict[str, float]:
    """Each gauge's last reading before t: exact from the samples, else from the rollups (older than them)."""
    variables = [m for m in metrics if m.startswith(VAR_PREFIX)]
    found = reads.newest_polls(server_id, [m for m in metrics if m not in variables], full_since, t - TICK)
    # Variables are stored when they change: one window back to the raw retention finds the last, where windows
    # growing from 10 minutes read four times to get there (the newest reading is the same either way).
    found |= reads.newest_polls(server_id, variables, full_since, t - TICK, span=t - TICK - full_since)
    missing = [m for m in metrics if m not in found]
    older = reads.series_map(server_id, missing, TimeRange(t - LOOKBACK, min(t, full_since) - TICK), PER_POLL)
    for m in missing:
        values = [v for v in older[m].values if v is not None] if m in older else []
        if values:
            found[m] = values[-1]
    return found


def settings_in_force(server_id: int, metrics: list[str], tr: TimeRange,
                      during: dict[str, query.Series]) -> dict[str, spec.InForce]:
    """Each setting as it was during the range, not as it is now: a past range is drawn against its own.
    during: the range's series of the metrics at the chart's points (read with its lines: reads.series_map)."""
    full_since = levels.available_since(levels.FULL)
    before = readings_before(server_id, metrics, tr.start, full_since)
    last = readings_before(server_id, metrics, tr.end + TICK, full_since)
    found = {m: spec.in_force(before.get(m), during[m].values if m in during else [], last.get(m)) for m in metrics}
    return {m: found.get(m, spec.InForce(None, None, False)) for m in SETTINGS}


def capacity_change(forces: dict[str, spec.InForce]) -> spec.Capacity | None:
    """The capacity at the range's start where it changed within the range (None: it held throughout)."""
    if not any(forces[m].changed for m in CAPACITY):
        return None
    return spec.redo_capacity({m: forces[m].first for m in CAPACITY})


def dml_start(tr: TimeRange) -> datetime | None:
    """Where the DML line can begin: it is summed per poll, and the polls are kept for the raw retention only."""
    full_since = levels.available_since(levels.FULL)
    since = tr.start if tr.start >= full_since else full_since + EDGE_MARGIN
    return since if since < tr.end and levels.choose(since, tr.end, PER_POLL) == levels.FULL else None


def dml_line(server_id: int, dml: tuple[str, ...], tr: TimeRange, points: int) -> tuple[spec.Summed | None, str]:
    """The DML rate summed at each poll, then cut to the chart's points; and what the page says of it.

    The three counters are read per poll, never as chart points: points of a coarse
    range are each counter's own bucket extremes, whose sum no poll measured.
    """
    since = dml_start(tr)
    if since is None:
        return None, (f"DML rows /s is not drawn: it is summed poll by poll, and the polls are kept "
                      f"{config.raw_retention().days} days (STORE_RAW_RETENTION_DAYS); this range is older.")
    # As arrays: a week of polls as datetimes and floats, only to be cut to the chart's points, cost more than the read.
    found = {a.metric: a for a in query.series_arrays([server_id], list(dml), since, tr.end, PER_POLL)}
    if not all(m in found for m in dml):
        return None, ""
    note = "" if since == tr.start else (
        f"DML rows /s is drawn from {since:%Y-%m-%d %H:%M} UTC on: it is summed poll by poll, and the polls "
        f"are kept {config.raw_retention().days} days (STORE_RAW_RETENTION_DAYS).")
    arrays = spec.summed_arrays([found[m] for m in dml])
    if arrays is not None:
        return spec.downsampled_arrays(*arrays, points), note
    lines = reads.series_map(server_id, list(dml), TimeRange(since, tr.end), PER_POLL)  # polls that differ
    return spec.downsampled(spec.summed([lines[m] for m in dml]), points), note
