"""Reading rollups: stored buckets of compacted hours, plus hot hours aggregated on the fly."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection

from store import blocks, catalog, hot_sums, joined_sums, pending_hours, read_raw, rollups
from store.array_params import int_array
from store.binary_params import binary_cursor
from store.catalog import MetricInfo
from store.points import micros

WIDTH = {"1m": rollups.MINUTE_US, "1h": rollups.HOUR_US}
ORIGIN = {"1m": rollups.HOUR_US, "1h": 24 * rollups.HOUR_US}  # a stored row's period
# Stored buckets of some metrics of one server in a range.
# (One index range scan per metric, OFFSET 0 keeping the subquery apart: with `metric_id = ANY(...)`,
# or a plain join, the planner may scan the whole server's range and filter.)
SELECT = (
    "SELECT m.id, (extract(epoch from r.period) * 1000000)::bigint, r.data "
    "FROM unnest(%s::int[]) WITH ORDINALITY AS m(id, k) CROSS JOIN LATERAL ("
    "SELECT period, data FROM {table} WHERE server_id = %s AND metric_id = m.id "
    "AND period >= to_timestamp(%s / 1000000.0) AND period <= %s OFFSET 0) r ORDER BY m.k, r.period"
)
# SELECT of the rate lines' usual rows (m.line: blocks.LINE_ROW, the head not zlib'd, 20 bytes or more) cut to
# what blocks._rate_lines() reads of them, marked HEAD_CUT: the flags, the head's length and first 20 bytes, the
# rates (a week of TPS's and the waits' minutes: 5 MB, 3 of them heads). CASE, not AND: its tests run in order.
HEAD_LENGTH = ("(get_byte(r.data, 1) + get_byte(r.data, 2) * 256 + get_byte(r.data, 3) * 65536"
               " + get_byte(r.data, 4) * 16777216)")
CUT = (
    f"CASE WHEN NOT m.line OR length(r.data) < 26 THEN r.data "
    f"WHEN get_byte(r.data, 0) & {0xFF & ~blocks.TAIL_ZLIB} <> {blocks.LINE_ROW} THEN r.data "
    f"WHEN {HEAD_LENGTH} < {blocks.HEAD_PREFIX} THEN r.data "
    f"ELSE set_byte(substring(r.data from 1 for {5 + blocks.HEAD_PREFIX}), 0, get_byte(r.data, 0) | {blocks.HEAD_CUT})"
    f" || substring(r.data from 6 + {HEAD_LENGTH}) END"
)
SELECT_LINES = SELECT.replace("unnest(%s::int[]) WITH ORDINALITY AS m(id, k)",
                              "unnest(%s::int[], %s::bool[]) WITH ORDINALITY AS m(id, line, k)").replace(
    "r.period) * 1000000)::bigint, r.data", f"r.period) * 1000000)::bigint, {CUT}")
TABLE = {"1m": "store_rollup_1m", "1h": "store_rollup_1h"}
SUMS = ("idx", "sum", "ms")  # what a total reads of a bucket


def read(server_id: int, metrics: list[MetricInfo], level: str, start: datetime,
         end: datetime, overlapping: bool = True, sums_only: bool = False,
         rate_lines: bool = False, gauge_lines: bool = False) -> dict[int, dict]:
    """Buckets per metric id, numbered from the Unix epoch, starting within [start, end]; overlapping=False:
    never a stored bucket not wholly inside (a range read in parts gets the buckets the whole read gets);
    sums_only: only their idx, sum and ms (a total of 700 counters skips each one's extremes and rates);
    rate_lines: a counter's only their idx, rmin and rmax (what its rate line draws: blocks.RATE_LINE);
    gauge_lines: a gauge's only their idx, count, sum, min and max (what its line draws: blocks.GAUGE_LINE)."""
    if not metrics:
        return {}
    width, lo, hi = WIDTH[level], micros(start), micros(end)
    fields: dict[int, tuple[str, ...]] = {
        m.id: SUMS if sums_only else blocks.RATE_LINE if rate_lines and m.counter
        else blocks.GAUGE_LINE if gauge_lines and not m.counter else blocks.FIELDS for m in metrics}
    stored, hot = _parts(server_id, metrics, level, start, end, fields, sums_only)
    out: dict[int, dict] = {}
    if sums_only:  # the metrics of integer sums joined at once
        of, ints = _integer_parts(metrics, stored, hot)
        joined = joined_sums.join([of[m.id] for m in ints], [m.id in hot for m in ints], width, lo, hi, overlapping)
        out = {m.id: b for m, b in zip(ints, joined, strict=True)}
    for m in metrics:
        if m.id not in out:
            out[m.id] = _joined(hot.get(m.id), stored.get(m.id, []), width, lo, hi, overlapping, fields[m.id])
    return {m.id: out[m.id] for m in metrics}


@dataclass
class Sums:
    """read(sums_only=True)'s buckets, those of integer sums (most counters) as joined_sums.join_flat() leaves
    them: one array of sums for all, with each bucket's metric (its place in `ints`)."""

    ints: list[MetricInfo]
    owner: np.ndarray
    sums: np.ndarray
    others: dict[int, dict]  # metric id -> its buckets (idx, sum, ms), as read() gives them


def read_sums(server_id: int, metrics: list[MetricInfo], level: str, start: datetime, end: datetime,
              overlapping: bool = True) -> Sums:
    """read(..., sums_only=True) without a dict a metric for the integer ones (a ranking of 380 counters)."""
    width, lo, hi = WIDTH[level], micros(start), micros(end)
    if not metrics:
        return Sums([], np.empty(0, np.int64), np.empty(0, np.int64), {})
    stored, hot = _parts(server_id, metrics, level, start, end, dict.fromkeys([m.id for m in metrics], SUMS), True)
    of, ints = _integer_parts(metrics, stored, hot)
    owner, (_idx, sums, _ms) = joined_sums.join_flat([of[m.id] for m in ints], [m.id in hot for m in ints], width,
                                                     lo, hi, overlapping)
    taken = {m.id for m in ints}
    others = {m.id: _joined(hot.get(m.id), stored.get(m.id, []), width, lo, hi, overlapping, SUMS)
              for m in metrics if m.id not in taken}
    return Sums(ints, owner, sums, others)


def _parts(server_id: int, metrics: list[MetricInfo], level: str, start: datetime, end: datetime,
           fields: dict[int, tuple[str, ...]], sums_only: bool) -> tuple[dict[int, list[dict]], dict[int, dict]]:
    """The stored buckets (pending days' hours among them) and the hot rows' buckets per metric id."""
    width, ids, lo = WIDTH[level], [m.id for m in metrics], micros(start)
    stored = _stored(server_id, ids, level, lo, end, fields)
    if level == "1h":
        with connection.cursor() as cur:
            for mid, hours in pending_hours.hours(cur, server_id, ids, start, end).items():
                stored.setdefault(mid, []).extend(hours)
    layouts = catalog.server_layouts([server_id])
    if sums_only:
        return stored, hot_sums.bucket_sums(server_id, metrics, layouts, start, end, width)
    return stored, {mid: rollups.aggregate(pts, width, 0) for mid, pts in read_raw.read(
        server_id, metrics, layouts, start, end).items()}


def _integer_parts(metrics: list[MetricInfo], stored: dict[int, list[dict]],
                   hot: dict[int, dict]) -> tuple[dict[int, list[dict]], list[MetricInfo]]:
    """Each metric's parts (its hot buckets first), and the metrics whose parts are all integer sums."""
    of = {m.id: ([hot[m.id]] if m.id in hot else []) + stored.get(m.id, []) for m in metrics}
    return of, [m for m in metrics if joined_sums.integer(of[m.id])]


def _joined(hot: dict | None, stored: list[dict], width: int, lo: int, hi: int, overlapping: bool,
            keys: tuple[str, ...]) -> dict:
    """One metric's buckets: its hot ones, then each stored part's inside() the range, a later one winning an
    index (rollups.concat), those starting in [lo - lo % width, hi]."""
    parts = [hot] if hot is not None else []
    b = rollups.concat(parts + [inside(s, width, lo, hi, overlapping, keys) for s in stored], keys)
    starts = b["idx"] * width
    keep = (starts >= lo - lo % width) & (starts <= hi)
    return {k: b[k][keep] for k in keys}


def inside(b: dict, width: int, lo: int, hi: int, overlapping: bool = True, keys: tuple = rollups.KEYS) -> dict:
    """Stored buckets wholly inside [lo, hi]: one that began before lo (or ends after hi) holds polls
    outside the range, which the hot hours' buckets, made of the range's polls only, never do.
    A range shorter than any whole bucket (an expired range zoomed in: only its hours are kept)
    keeps the buckets it overlaps, the only data there is (unless overlapping is False)."""
    starts = b["idx"] * width
    keep = (starts >= lo) & (starts + width <= hi + 1)
    if keep.all():
        return b
    if not keep.any() and overlapping:
        keep = (starts + width > lo) & (starts <= hi)
    return {k: b[k][keep] for k in keys if k in b}


def holds_whole(width: int, lo: int, hi: int) -> bool:
    """Whether [lo, hi] (microseconds) holds a whole bucket of the width: if it does, every metric's total is
    over the buckets wholly inside (a metric with none there has none in the range), not only those that have some."""
    first = -(-lo // width) * width
    return first + width <= hi + 1


def _stored(server_id: int, ids: list[int], level: str, lo: int, end: datetime,
            fields: dict[int, tuple[str, ...]], cut: bool = True) -> dict[int, list[dict]]:
    """The stored rows' buckets per metric id (in a list: more parts are added to it), the columns of its fields.
    A rate line's usual rows come cut to what it reads (SELECT_LINES); a metric whose rows
    decode_buckets_grouped() could not read so (another kind among them) is read again whole."""
    lines = [cut and fields[mid] == blocks.RATE_LINE for mid in ids]
    sql, params = (SELECT_LINES, [int_array(ids), _bool_array(lines)]) if any(lines) else (SELECT, [int_array(ids)])
    with binary_cursor() as cur:  # binary results: bytea as it is stored, in half the time of hex text
        cur.execute(sql.format(table=TABLE[level]), [*params, server_id, lo - lo % ORIGIN[level], end], binary=True)
        found = cur.fetchall()
    rows: dict[tuple[str, ...], dict[int, list]] = defaultdict(lambda: defaultdict(list))  # by the fields read
    for mid, period_us, data in found:
        rows[fields[mid]][mid].append((data, period_us // WIDTH[level]))
    out = {mid: [b] for wanted, groups in rows.items()
           for mid, b in blocks.decode_buckets_grouped(groups, wanted).items()}
    again = [mid for groups in rows.values() for mid in groups if mid not in out]
    return out | (_stored(server_id, again, level, lo, end, fields, cut=False) if again else {})


def _bool_array(values: list[bool]) -> str:
    return "{" + ",".join("t" if v else "f" for v in values) + "}"
