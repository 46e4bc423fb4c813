"""The rows of a series export, read from the store one time chunk at a time.

Memory stays flat whatever the range: only one chunk of points is held, and
each row goes out as soon as it is formatted.
"""

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

from django.conf import settings

from dashboards.export.params import ExportError, SeriesExport
from dashboards.export.units import column_name
from store import query

CHUNK_POINTS = 2000  # rows per series per store query, at most
CHUNK_VALUES = 20_000  # values per store query: fewer rows a chunk when there are many columns
MIN_CHUNK_ROWS = 100
CHART_MAX_POINTS = 2400  # the widest chart (dashboards.timerange.MAX_POINTS)
RAW_CHUNK = 20_000  # full-resolution points per series a store query reads (it downsamples in memory)

Key = tuple[int, str]  # (server id, metric)


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
    return ["time (UTC)"] + [column_name(names[k[0]], k[1], kind, export.mode) for k, kind in cols]


def chunk_span(export: SeriesExport, ncols: int) -> timedelta:
    """How much time one store query covers.

    Full resolution: up to CHUNK_POINTS polls a query (fewer with many columns),
    never downsampled (max_points allows a point a second, the shortest poll
    interval). With a step: a whole number of steps, as many as keep the points
    read under RAW_CHUNK, so the store's min/max bins never straddle two queries.
    A range no wider than a chart is read in one query, as the chart read it.
    """
    interval = min(s.poll_interval for s in export.servers)
    whole = export.end - export.start
    if export.step is not None and whole.total_seconds() / export.step <= CHART_MAX_POINTS:
        return whole  # a chart's range: one query, binned exactly as the chart was
    rows = max(MIN_CHUNK_ROWS, min(CHUNK_POINTS, CHUNK_VALUES // max(1, ncols)))
    if export.step is None:
        return timedelta(seconds=rows * interval)
    steps = max(1, min(rows, int(RAW_CHUNK * interval / export.step)))
    return timedelta(seconds=steps * export.step)


def chunk_points(export: SeriesExport, first: datetime, last: datetime) -> int:
    """max_points for one chunk: a point a second (no downsampling), or one a step."""
    seconds = (last - first).total_seconds()
    if export.step is None:
        return math.ceil(seconds) + 1
    return max(2, math.ceil(seconds / export.step - 1e-9))  # span / (span / w) is w, not w + 1


def chunks(start: datetime, end: datetime, span: timedelta) -> Iterator[tuple[datetime, datetime, bool]]:
    count = max(1, math.ceil((end - start) / span))
    for n in range(count):
        last = n == count - 1
        yield start + n * span, end if last else start + (n + 1) * span, last


def rows(export: SeriesExport, cols: list[tuple[Key, str]]) -> Iterator[list]:
    """One row per timestamp: time, then one value per column (None if absent)."""
    index = {key: i for i, (key, _) in enumerate(cols)}
    span = chunk_span(export, len(cols))
    server_ids = sorted({k[0] for k, _ in cols})
    for first, last, final in chunks(export.start, export.end, span):
        found = query.series(
            server_ids, export.metrics, first, last, max_points=chunk_points(export, first, last), mode=export.mode
        )
        parts = {}
        for series in found:
            col = index.get((series.server_id, series.metric))
            if col is None:
                continue
            if first == export.start and final:
                # One query, as a chart reads it: keep every point, even a rollup bucket's
                # max drawn at its middle, past `to`, so the rows are the chart's.
                parts[col] = (series.ts, series.values)
            else:
                # Each chunk owns [first, last): a point on the boundary is written once.
                lo = bisect_left(series.ts, first)
                hi = bisect_right(series.ts, last) if final else bisect_left(series.ts, last)
                parts[col] = (series.ts[lo:hi], series.values[lo:hi])
        yield from merge(parts, len(cols))
        del found, parts


def merge(parts: dict[int, tuple[list, list]], width: int) -> Iterator[list]:
    """Rows from column -> (times, values); polls of one source share their times (the fast path)."""
    if not parts:
        return
    times = next(iter(parts.values()))[0]
    if all(ts == times for ts, _ in parts.values()):
        none = [None] * len(times)
        columns = [parts[c][1] if c in parts else none for c in range(width)]
        for row in zip(times, *columns, strict=True):
            yield list(row)
        return
    by_ts: dict[datetime, list] = {}
    for col, (ts_list, values) in parts.items():
        for ts, value in zip(ts_list, values, strict=True):
            row = by_ts.get(ts)
            if row is None:
                row = by_ts[ts] = [ts] + [None] * width
            row[col + 1] = value
    for ts in sorted(by_ts):
        yield by_ts[ts]


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
