"""The rows of a series export, on one time grid (export.grid), read from the store a chunk at a time.

Memory stays flat whatever the range: only one chunk of points is held, and
each row goes out as soon as it is formatted.
"""

import math
from collections.abc import Iterator
from datetime import timedelta
from fnmatch import fnmatchcase

from django.conf import settings

from dashboards.export import grid
from dashboards.export.grid import Grid
from dashboards.export.params import ExportError, SeriesExport
from dashboards.export.units import column_name, scale
from store import query

CHUNK_POINTS = 2000  # rows per series per store query, at most
CHUNK_VALUES = 20_000  # values per store query: fewer rows a chunk when there are many columns
MIN_CHUNK_ROWS = 100
RAW_CHUNK = 20_000  # full-resolution points per series a store query reads (it downsamples in memory)

Key = tuple[int, str]  # (server id, metric)
EMPTY = query.Series(0, "", "gauge", [], [])


def columns(export: SeriesExport) -> list[tuple[Key, str]]:
    """Every series the servers have for these names or patterns, in the order asked.

    The store answers a zero-length range with each matching metric (and its
    kind) but reads no points: the header is known before any data is read.
    """
    found = query.series(
        [s.pk for s in export.servers], export.metrics, export.start, export.start, max_points=2,
        mode=export.mode,
    )
    kinds = {(s.server_id, s.metric): s.kind for s in found}
    order = {s.pk: i for i, s in enumerate(export.servers)}
    keys = sorted(kinds, key=lambda k: (order.get(k[0], len(order)), _metric_rank(export.metrics, k[1]), k[1]))
    return [(k, kinds[k]) for k in keys]


def unmatched(export: SeriesExport, cols: list[tuple[Key, str]]) -> list[str]:
    """The names and patterns asked for that match no series of any of the servers."""
    found = [metric for (_, metric), _ in cols]
    return [p for p in export.metrics if not any(m == p or fnmatchcase(m, p) for m in found)]


def no_match_message(export: SeriesExport, missing: list[str]) -> str:
    servers = ", ".join(s.name for s in export.servers)
    return (f"{', '.join(missing)}: no such metric collected on {servers}. Names are listed in "
            "docs/metrics.md and, per server, on /explore/ (a source that is off or failing collects nothing).")


def _metric_rank(asked: list[str], metric: str) -> int:
    """Exact names and patterns keep the order the user gave them."""
    for i, pattern in enumerate(asked):
        if metric == pattern or fnmatchcase(metric, pattern):
            return i
    return len(asked)


def header(export: SeriesExport, cols: list[tuple[Key, str]]) -> list[str]:
    names = {s.pk: s.name for s in export.servers}
    per = "interval" if export.step is None else f"{export.step:g} s"
    out = ["time (UTC)"]
    for k, kind in cols:
        name = column_name(names[k[0]], k[1], kind, export.mode, per)
        out += [name, f"{name} min", f"{name} max"] if export.minmax else [name]
    return out


def grid_of(export: SeriesExport) -> Grid:
    """The export's rows: a bucket per step, or per poll interval centred on the first poll found."""
    if export.step is not None:
        return grid.step_grid(export.start, export.step)
    interval = min(s.poll_interval for s in export.servers)
    probe_end = min(export.end, export.start + timedelta(seconds=10 * interval))
    found = query.series([s.pk for s in export.servers], export.metrics, export.start, probe_end,
                         max_points=10 * interval + 2, mode=export.mode)
    firsts = [s.ts[0] for s in found if s.ts]
    if not firsts:
        return grid.step_grid(export.start, interval)  # no poll near the start: whole intervals
    return grid.poll_grid(min(firsts), interval)


def chunk_buckets(export: SeriesExport, g: Grid, ncols: int) -> int:
    """Buckets per store query: few enough rows (with many columns) and full-resolution points."""
    rows = max(MIN_CHUNK_ROWS, min(CHUNK_POINTS, CHUNK_VALUES // max(1, ncols)))
    interval = min(s.poll_interval for s in export.servers)
    return max(1, min(rows, int(RAW_CHUNK * interval * 1e6 / g.step)))


def rows(export: SeriesExport, cols: list[tuple[Key, str]]) -> Iterator[list]:
    """One row per bucket of the grid: time, then each column's value (empty where no sample)."""
    g = grid_of(export)
    last = g.bucket(export.end)  # bucket 0 holds the range's start (or its first poll)
    if g.label(last) > export.end:
        last -= 1  # a poll grid's bucket holding the end is labelled by a poll after it: no row off the range
    per_chunk = chunk_buckets(export, g, len(cols))
    for k0 in range(0, last + 1, per_chunk):
        k1 = min(last, k0 + per_chunk - 1)
        columns = read_chunk(export, cols, g, k0, k1)
        for n, row in enumerate(zip(*columns, strict=True)):
            yield [g.label(k0 + n), *row]
        del columns


def read_chunk(export: SeriesExport, cols: list[tuple[Key, str]], g: Grid, k0: int, k1: int) -> list[list]:
    """Each column's buckets k0..k1, from the samples (never from downsampled points)."""
    lo, hi = max(g.start_of(k0), export.start), min(grid.bucket_span(g, k1)[1], export.end)
    found = query.series(sorted({k[0] for k, _ in cols}), export.metrics, lo, hi,
                         max_points=math.ceil((hi - lo).total_seconds()) + 2, mode=export.mode)
    by_key = {(s.server_id, s.metric): s for s in found}
    out = []
    for key, kind in cols:
        s = by_key.get(key) or EMPTY
        factor = scale(key[1])
        values = s.values if factor == 1 else [None if v is None else v * factor for v in s.values]
        out += grid.bucketize(g, k0, k1, s.ts, values, export.mode == "delta" and kind == "counter", export.minmax)
    return out


def checked_columns(export: SeriesExport) -> list[tuple[Key, str]]:
    """The export's columns, or ExportError if a name matches nothing or the export is beyond the bound.

    Checked before any row is sent: the page, the token API and export_csv alike.
    """
    cols = columns(export)
    missing = unmatched(export, cols)
    if missing:
        raise ExportError(no_match_message(export, missing))
    check_size(export, len(cols))
    return cols


def check_size(export: SeriesExport, ncols: int) -> None:
    """At most EXPORT_MAX_CELLS values (rows x columns) in one request."""
    step = export.step or min(s.poll_interval for s in export.servers)  # full resolution: one row a poll
    rows = int((export.end - export.start).total_seconds() / step) + 1
    limit = settings.EXPORT_MAX_CELLS
    if rows * ncols > limit:
        raise ExportError(f"this export would hold about {rows:,} rows x {ncols} columns = {rows * ncols:,} values, "
                          f"above the limit of {limit:,} per request (EXPORT_MAX_CELLS): export a shorter range, "
                          "a larger step or fewer metrics")


def csv_rows(export: SeriesExport) -> Iterator[list]:
    """Header, then rows: what export.csv and the export_csv command write."""
    cols = checked_columns(export)
    yield header(export, cols)
    if cols:
        yield from rows(export, cols)
