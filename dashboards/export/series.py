"""The rows of a series export, on one time grid (export.grid), read from the store a chunk at a time.

Memory stays flat whatever the range: only one chunk of points is held, and
each row goes out as soon as it is formatted.
"""

import math
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

import numpy as np
from django.conf import settings

from dashboards.export import by_source, csv_numbers, grid
from dashboards.export.by_source import ROLLED_AT_LEAST
from dashboards.export.csv_safe import Lines, iso_utc_many
from dashboards.export.grid import Grid
from dashboards.export.params import ExportError, SeriesExport
from dashboards.export.units import column_name, scale
from store import query
from store.points import from_micros, micros
from store.query import TICK

CHUNK_POINTS = 2000  # rows per series per store query, at most
CHUNK_VALUES = 20_000  # values per store query: fewer rows a chunk when there are many columns
MIN_CHUNK_ROWS = 100
TEXT_CELLS = 50_000  # cells formatted at once (csv_numbers lays each out in ~15 bytes and a mask)
RAW_CHUNK = 20_000  # full-resolution points per series a store query reads (it downsamples in memory)

Key = tuple[int, str]  # (server id, metric)
EMPTY = query.SeriesArrays(0, "", "gauge", np.zeros(0, np.int64), np.zeros(0))


def columns(export: SeriesExport) -> list[tuple[Key, str]]:
    """Every series the servers have for these names or patterns, in the order asked: the header is known
    before any data is read."""
    kinds = query.metric_kinds([s.pk for s in export.servers], export.metrics)
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


def unmatched_by_server(export: SeriesExport, cols: list[tuple[Key, str]]) -> dict[str, list[str]]:
    """By server name: the names and patterns asked for that match no series of that server (of several: one
    server's column of a name is no answer for another's)."""
    found: dict[int, list[str]] = {}
    for (server_id, metric), _ in cols:
        found.setdefault(server_id, []).append(metric)
    out = {}
    for server in export.servers:
        have = found.get(server.pk, [])
        missing = [p for p in export.metrics if not any(m == p or fnmatchcase(m, p) for m in have)]
        if missing:
            out[server.name] = missing
    return out


def server_lacks_message(lacking: dict[str, list[str]]) -> str:
    said = "; ".join(f"{', '.join(missing)}: no such metric collected on {name}" for name, missing in lacking.items())
    return (f"{said} (the other servers asked have them: leave it out, or ask it for what it has). Names are listed "
            "in docs/metrics.md and, per server, on /explore/ (a source that is off or failing collects nothing).")


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
        if export.seconds and kind == "counter":
            out.append(f"{name} seconds covered")
    return out


def first_polls(export: SeriesExport, carry: by_source.Carry | None = None) -> dict[int, datetime]:
    """Each server's first poll near the range's start (within 10 poll intervals): the first point of any of
    its series, from the poll matrices where by_source can tell it (with carry), else from series()."""
    interval = min(s.poll_interval for s in export.servers)
    return polls_in(export, carry, export.start, min(export.end, export.start + timedelta(seconds=10 * interval)))


def late_polls(export: SeriesExport, carry: by_source.Carry | None, found: dict[int, datetime]) -> dict[int, datetime]:
    """A poll near the range's end (within 10 poll intervals) of each server with none near its start: a server
    first polled minutes into the range (a range of the last 15 minutes on a server added 5 minutes ago, an outage
    at the range's start) gets rows on its own polls too, not on the whole intervals from the start."""
    if all(s.pk in found for s in export.servers):
        return {}
    interval = min(s.poll_interval for s in export.servers)
    late = polls_in(export, carry, max(export.start, export.end - timedelta(seconds=10 * interval)), export.end)
    return {server_id: t for server_id, t in late.items() if server_id not in found}


def polls_in(export: SeriesExport, carry: by_source.Carry | None, start: datetime, end: datetime
             ) -> dict[int, datetime]:
    """Each server's first point of any of its series in [start, end] (at most 10 poll intervals long)."""
    interval = min(s.poll_interval for s in export.servers)
    max_points = 10 * interval + 2
    quick = by_source.first_points(export, carry, start, end, max_points) if carry else None
    if quick is not None:
        return {server_id: from_micros(us) for server_id, us in quick.items()}
    found = query.series([s.pk for s in export.servers], export.metrics, start, end,
                         max_points=max_points, mode=export.mode)
    firsts: dict[int, datetime] = {}
    for s in found:
        if s.ts:
            firsts[s.server_id] = min(s.ts[0], firsts.get(s.server_id, s.ts[0]))
    return firsts


def grid_of(export: SeriesExport, firsts: dict[int, datetime], late: dict[int, datetime] | None = None) -> Grid:
    """The export's rows: a bucket per step, or per poll interval centred on the first poll found (near the
    start; else near the end, `late`, the buckets reaching back to the start)."""
    if export.step is not None:
        return grid.step_grid(export.start, export.step)
    interval = min(s.poll_interval for s in export.servers)
    if firsts:
        return grid.poll_grid(min(firsts.values()), interval)
    if late:  # polls only later in the range: their grid, from the range's start
        return grid.back_to(grid.poll_grid(min(late.values()), interval), export.start)
    return grid.step_grid(export.start, interval)  # no poll near either end: whole intervals


def server_grids(export: SeriesExport, g: Grid, firsts: dict[int, datetime]) -> dict[int, Grid]:
    """The grid each server's samples are sorted on: the rows' own, or for one row a poll, moved to that
    server's polls (grid.in_phase), so a server polled out of phase with the first gets one poll a row."""
    if export.step is not None:
        return {s.pk: g for s in export.servers}
    return {s.pk: grid.in_phase(g, firsts[s.pk]) if s.pk in firsts else g for s in export.servers}


def row_span(export: SeriesExport, g: Grid, grids: dict[int, Grid]) -> tuple[int, int]:
    """The first and last bucket to write a row for: none labelled before the range; the last is the latest
    holding its end on any server's grid, which may be labelled past it (rows() leaves it out when empty)."""
    if export.step is not None:
        return grid.whole_buckets(g, export.start, export.end)
    first = 0 if g.label(0) >= export.start else 1  # bucket 0 holds the range's first poll (or its start)
    return first, max(sg.bucket(export.end) for sg in grids.values())


def left_out_last(values: np.ndarray, g: Grid, grids: dict[int, Grid], last: int, end_us: int) -> bool:
    """Whether the last row is left out: it holds nothing, and it is labelled past the range or its polls come
    after the range. A poll read at :37.2 sits on the row of :40: an export to :37.5 keeps that row, judged by
    its poll and not its label. An empty row labelled inside the range is dropped only when every server's poll
    for it (mid-bucket, grid.in_phase) comes after the range (a live export read 1.3 s after a row's time, before
    its poll); otherwise its empty cells say a poll was missed. A row with any value is kept: a host's polls are
    read before the database's."""
    if not len(values) or not np.isnan(values[-1]).all():
        return False
    return micros(g.label(last)) > end_us or all(sg.origin + last * sg.step + sg.step // 2 > end_us
                                                  for sg in grids.values())


def chunk_buckets(export: SeriesExport, g: Grid, ncols: int) -> int:
    """Buckets per store query: few enough rows (with many columns) and full-resolution points."""
    rows = max(MIN_CHUNK_ROWS, min(CHUNK_POINTS, CHUNK_VALUES // max(1, ncols)))
    interval = min(s.poll_interval for s in export.servers)
    return max(1, min(rows, int(RAW_CHUNK * interval * 1e6 / g.step)))


def rows(export: SeriesExport, cols: list[tuple[Key, str]]) -> Iterator[Lines]:
    """One row per bucket of the grid: time, then each column's value (empty where no sample), as CSV lines."""
    carry = by_source.Carry(cols)
    firsts = first_polls(export, carry) if export.step is None else {}
    late = late_polls(export, carry, firsts) if export.step is None else {}
    g = grid_of(export, firsts, late)
    grids = server_grids(export, g, {**late, **firsts})
    first, last = row_span(export, g, grids)
    per_chunk = chunk_buckets(export, g, len(cols))
    for k0 in range(first, last + 1, per_chunk):
        k1 = min(last, k0 + per_chunk - 1)
        values = read_chunk(export, cols, grids, k0, k1, carry)  # a row per bucket
        if k1 == last and export.step is None and left_out_last(values, g, grids, last, micros(export.end)):
            values = values[:-1]
        block = max(1, TEXT_CELLS // values.shape[1])
        for b0 in range(0, len(values), block):  # written a block of rows at a time: the text stays small
            ks = np.arange(k0 + b0, k0 + min(b0 + block, len(values)))
            labels = iso_utc_many(g.origin + ks * g.step + g.label_shift)
            yield Lines(csv_numbers.block(labels, values[b0:b0 + block]))
        del values


def read_chunk(export: SeriesExport, cols: list[tuple[Key, str]], grids: dict[int, Grid],
               k0: int, k1: int, carry: by_source.Carry) -> np.ndarray:
    """Each column's buckets k0..k1 (NaN where none), from the samples (never from downsampled points): a row
    per bucket. The columns of a source read at every poll are done together (by_source), the rest one by one."""
    lo = max(min(g.start_of(k0) for g in grids.values()), export.start)
    hi = min(max(grid.bucket_span(g, k1)[1] for g in grids.values()), export.end)
    blocks = by_source.columns(export, grids, k0, k1, lo, hi, carry)
    width = {key: block.shape[2] for keys, block in blocks for key in keys}
    rest = [(key, kind) for key, kind in cols if key not in width]
    each = dict(zip([key for key, _ in rest], read_columns(export, rest, grids, k0, k1, lo, hi), strict=True))
    width |= {key: len(parts) for key, parts in each.items()}
    at = dict(zip([key for key, _ in cols], np.cumsum([0] + [width[key] for key, _ in cols]).tolist(), strict=False))
    out = np.empty((k1 - k0 + 1, sum(width.values())))
    for keys, block in blocks:
        places = np.array([at[key] for key in keys])[:, None] + np.arange(block.shape[2])
        out[:, places.ravel()] = block.reshape(len(block), -1)
    for key, parts in each.items():
        out[:, at[key]:at[key] + len(parts)] = np.column_stack(parts)
    return out


def read_columns(export: SeriesExport, cols: list[tuple[Key, str]], grids: dict[int, Grid], k0: int, k1: int,
                 lo: datetime, hi: datetime) -> list[list[np.ndarray]]:
    """Each column's parts (value, then min and max, then seconds covered) over buckets k0..k1, one by one."""
    deltas = counter_deltas(cols, lo, hi)
    points = series_points([key for key, _ in cols if key not in deltas], export.mode, lo, hi)
    out = []
    for key, kind in cols:
        g = grids[key[0]]
        if key in deltas:
            out.append(grid.counter_buckets(g, k0, k1, *deltas[key], export.mode == "rate", export.minmax,
                                            export.seconds, as_array=True))
            continue
        s = points.get(key) or EMPTY
        factor = scale(key[1])
        values = s.values if factor == 1 else s.values * factor
        out.append(grid.bucketize(g, k0, k1, s.ts, values, export.mode == "delta" and kind == "counter",
                                  export.minmax, as_array=True))
    return out


def counter_deltas(cols: list[tuple[Key, str]], lo: datetime, hi: datetime
                   ) -> dict[Key, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each counter's deltas in [lo, hi] with the seconds each covers, in the CSV's unit: its polls and,
    where they are gone (past the raw retention), before the first of them its rollup buckets' sums."""
    wanted: dict[int, list[str]] = {}
    for (server_id, metric), kind in cols:
        if kind == "counter":
            wanted.setdefault(server_id, []).append(metric)
    out = {}
    for server_id, metrics in wanted.items():
        polls = {m: s for m, s in query.counter_arrays(server_id, metrics, lo, hi).items() if len(s.ts)}
        for metric in metrics:
            parts = [measured(polls[metric])] if metric in polls else []
            until = began(polls[metric]) - TICK if metric in polls else hi
            if until - lo >= ROLLED_AT_LEAST:  # room for a whole rollup bucket before the polls
                rolled = query.rollup_sums(server_id, [metric], lo, until).get(metric)
                parts = ([as_arrays(rolled)] if rolled else []) + parts
            if parts:
                out[(server_id, metric)] = joined(parts, scale(metric))
    return out


def began(samples: query.CounterArrays) -> datetime:
    """When the first delta began to be counted: the poll before it."""
    return from_micros(int(samples.ts[0])) - timedelta(seconds=float(samples.seconds[0]))


def as_arrays(samples: query.CounterSamples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.array([micros(t) for t in samples.ts], np.int64), np.array(samples.seconds, np.float64),
            np.array(samples.deltas, np.float64))


def measured(samples: query.CounterArrays) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The polls a row may count: not one whose interval spans an outage.

    Its delta is the work of the whole outage, which belongs to no one step; the
    charts leave its rate out (CounterSamples.spanning), and so do both CSV modes,
    so a delta row and a rate row always hold the same polls.
    """
    keep = ~samples.spanning()
    return samples.ts[keep], samples.seconds[keep], samples.deltas[keep]


def joined(parts: Sequence[tuple[np.ndarray, ...]], factor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times, seconds and deltas of the parts one after the other, deltas in the CSV's unit."""
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2].astype(np.float64) for p in parts]) * factor)


def series_points(keys: list[Key], mode: str, lo: datetime, hi: datetime) -> dict[Key, query.SeriesArrays]:
    """Gauges' values (and rollup-only counters' points) in [lo, hi], by (server, metric); NaN: a break."""
    if not keys:
        return {}
    found = query.series_arrays(sorted({k[0] for k in keys}), sorted({k[1] for k in keys}), lo, hi,
                         max_points=math.ceil((hi - lo).total_seconds()) + 2, mode=mode)
    wanted = set(keys)
    return {(s.server_id, s.metric): s for s in found if (s.server_id, s.metric) in wanted}


def checked_columns(export: SeriesExport) -> list[tuple[Key, str]]:
    """The export's columns, or ExportError if a name matches nothing or the export is beyond the bound.

    Checked before any row is sent: the page, the token API and export_csv alike.
    """
    cols = columns(export)
    missing = unmatched(export, cols)
    if missing:
        raise ExportError(no_match_message(export, missing))
    lacking = unmatched_by_server(export, cols) if len(export.servers) > 1 else {}
    if lacking:
        raise ExportError(server_lacks_message(lacking))
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


def csv_rows(export: SeriesExport) -> Iterator[list[str] | Lines]:
    """Header, then rows: what export.csv and the export_csv command write."""
    cols = checked_columns(export)
    yield header(export, cols)
    if cols:
        yield from rows(export, cols)
