"""Reading statement digests back: each digest's sums over a range, its line over time, its text.

A range holds the reads that ended in it, start < ts <= end (as the pages' exact interval
totals, dashboards.reads.interval_totals). Each read's row is decoded (store.statements) and
the deltas summed exactly: every value is split into its high and low 32 bits, each half
summed in int64 (no overflow for 2**31 reads), and the halves joined as Python ints, so
picosecond totals over months stay exact, as an engineer adding the rows up would get them.
max_ps, p95_ps and p99_ps are levels the server keeps since the digest's FIRST_SEEN: the
range's highest max, and the newest reading of each quantile, are given.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection

from store import codec
from store.binary_params import binary_cursor
from store.monitoring_reads import is_monitoring_read
from store.points import datetimes, from_micros
from store.request_memo import RequestMemo
from store.statements import COUNTERS, HOUR, HOUR_COLUMNS, HOUR_WIDTH, REST, WIDTH, decode_read, hour_of

READS_SQL = ("SELECT ts, interval_ms, n, ids, data FROM store_statement"
             " WHERE server_id = %s AND ts > %s AND ts <= %s ORDER BY ts")
# The rollups of the hours in a range, each with the reads it holds: one is used while it holds as many as its
# hour has now (a read written after its hour was rolled up makes the rollup wait for the next one).
HOURS_SQL = ("SELECT hour, reads, n, ids, data FROM store_statement_hour"
             " WHERE server_id = %s AND hour >= %s AND hour <= %s")
# The reads in some (a, b] ranges, in time order (the constant bounds let the planner leave other partitions out).
READS_IN_SQL = (
    "SELECT (extract(epoch from s.ts) * 1000000)::bigint, s.interval_ms, s.n, s.ids, s.data "
    "FROM unnest(%s::timestamptz[], %s::timestamptz[]) AS r(a, b) CROSS JOIN LATERAL ("
    "SELECT ts, interval_ms, n, ids, data FROM store_statement WHERE server_id = %s AND ts > r.a AND ts <= r.b "
    "AND ts > %s AND ts <= %s OFFSET 0) s ORDER BY 1"
)
TIMES_SQL = ("SELECT (extract(epoch from ts) * 1000000)::bigint, interval_ms FROM store_statement"
             " WHERE server_id = %s AND ts > %s AND ts <= %s ORDER BY ts")
# The digest ids of the reads in some (a, b] ranges, each with its range's number (from 1).
IDS_IN_SQL = (
    "SELECT r.k, s.n, s.ids, extract(epoch from r.a - s.began) FROM unnest(%s::timestamptz[], %s::timestamptz[]) "
    "WITH ORDINALITY AS r(a, b, k) CROSS JOIN LATERAL (SELECT n, ids, ts - interval_ms * interval '1 millisecond' "
    "AS began FROM store_statement WHERE server_id = %s AND ts > r.a AND ts <= r.b "
    "AND ts > %s AND ts <= %s OFFSET 0) s"
)
# The first read at or after each (server, a) up to b (a read's end: the constant bounds prune partitions).
COVERING_SQL = (
    "SELECT r.k, s.ts, s.interval_ms FROM unnest(%s::int[], %s::timestamptz[], %s::timestamptz[]) WITH ORDINALITY "
    "AS r(server_id, a, b, k) CROSS JOIN LATERAL (SELECT ts, interval_ms FROM store_statement "
    "WHERE server_id = r.server_id AND ts >= r.a AND ts <= r.b AND ts >= %s AND ts <= %s ORDER BY ts LIMIT 1) s"
)
TEXTS_SQL = "SELECT id, schema_name, digest, digest_text, sample_text FROM store_statement_text WHERE id = ANY(%s)"
TEXT_SQL = ("SELECT id, schema_name, digest, digest_text, sample_text, first_stored FROM store_statement_text"
            " WHERE id = %s")
MAX, P95, P99 = len(COUNTERS), len(COUNTERS) + 1, len(COUNTERS) + 2  # the levels' columns
LOW = np.int64(0xFFFFFFFF)
DECODE_READS = 240  # reads decoded in one call (about 50,000 digest rows: a few MB of arrays)


@dataclass
class DigestTotals:
    digest_id: int
    schema: str
    digest: str
    text: str
    sample: str
    intervals: int  # reads in which it had a row
    sums: dict[str, int]  # COUNTERS -> exact sum over the range
    max_ps: int
    p95_ps: int | None
    p99_ps: int | None
    first: datetime
    last: datetime
    monitoring: bool = False  # a monitoring read (store.monitoring_reads): its text reads only the server's state

    @property
    def is_rest(self) -> bool:
        return (self.schema, self.digest) == REST

    @property
    def avg_ps(self) -> float | None:
        return self.sums["time_ps"] / self.sums["execs"] if self.sums["execs"] else None

    @property
    def full_scans(self) -> int:
        return self.sums["no_index"] + self.sums["no_good_index"]

    @property
    def examined_per_sent(self) -> float | None:
        return self.sums["rows_examined"] / self.sums["rows_sent"] if self.sums["rows_sent"] else None


@dataclass
class Text:
    digest_id: int
    schema: str
    digest: str
    text: str
    sample: str
    first_stored: datetime

    @property
    def monitoring(self) -> bool:
        return is_monitoring_read(self.schema, self.text)


@dataclass
class Pieces:
    """Digest rows of a range, stacked: each a read's row (reads 1) or an hour's rollup row (its reads summed).

    key orders them in time (a read's end, an hour's end); first and last are the times of the first and
    last read each covers; times are epoch microseconds.
    """

    ids: np.ndarray
    sums: np.ndarray  # rows x len(COUNTERS)
    reads: np.ndarray
    max_ps: np.ndarray
    quantiles: np.ndarray  # rows x 2: p95, p99
    missing: np.ndarray  # rows x 2: the quantile is NULL
    first: np.ndarray
    last: np.ndarray
    key: np.ndarray

    @classmethod
    def join(cls, parts: list["Pieces"]) -> "Pieces":
        if not parts:
            empty = np.empty(0, np.int64)
            return cls(empty, np.empty((0, MAX), np.int64), empty, empty, np.empty((0, 2), np.int64),
                       np.empty((0, 2), bool), empty, empty, empty)
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    def take(self, keep: np.ndarray) -> "Pieces":
        return Pieces(*(getattr(self, f)[keep] for f in self.__dataclass_fields__))


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TICK = timedelta(microseconds=1)


def micros(t: datetime) -> int:
    return (t - EPOCH) // TICK


def of_reads(stored: list[tuple], wanted: np.ndarray | None = None) -> "Pieces":
    """The digest rows (the wanted digests' only, when given) of stored reads (end as epoch microseconds,
    interval ms, n, ids, data)."""
    read, ids, values, nulls = decode_rows([row[2:] for row in stored], WIDTH, wanted)
    at = np.array([row[0] for row in stored], np.int64)[read]
    return Pieces(ids, values[:, :MAX], np.ones(len(ids), np.int64), values[:, MAX], values[:, P95:P99 + 1],
                  nulls[:, P95:P99 + 1], at, at, at)


def of_hours(rolled: dict[datetime, tuple], wanted: np.ndarray | None = None) -> Pieces:
    """The rollups' digest rows (the wanted digests' only, when given), the hours decoded at once."""
    hour, ids, values, nulls = decode_rows(list(rolled.values()), HOUR_WIDTH, wanted)
    start = np.array([micros(h) for h in rolled], np.int64)[hour]
    return Pieces(ids, values[:, :MAX], values[:, MAX], values[:, MAX + 1], values[:, MAX + 2:MAX + 4],
                  nulls[:, MAX + 2:MAX + 4], start + values[:, MAX + 4], start + values[:, MAX + 5],
                  start + HOUR // TICK)


def pieces(server_id: int, start: datetime, end: datetime, rollups: bool = True,
           digest_ids: list[int] | None = None) -> Pieces:
    """The range's digest rows (of digest_ids only, when given: the other rows are not decoded): the rollups
    of the closed hours wholly inside it that still hold every read of their hour (a read stored after its
    hour was rolled up is read raw until maintenance rolls it again), and the reads of the rest."""
    wanted = None if digest_ids is None else np.array(sorted(set(digest_ids)), np.int64)
    rolled = rolled_hours(server_id, start, end) if rollups else {}
    parts = [of_hours(rolled, wanted)] if rolled else []
    with binary_cursor() as cur:  # one statement for every range between the hours, bytea as stored
        stored = _reads_in(cur, server_id, segments(start, end, sorted(rolled)))
    return Pieces.join(parts + [of_reads(part, wanted) for part in chunks(stored)])


def rolled_hours(server_id: int, start: datetime, end: datetime) -> dict[datetime, tuple]:
    """hour -> (n, ids, data) of the usable rollups of the hours (hour, hour + 1 h] inside (start, end]."""
    first = hour_of(start + HOUR)  # the first hour starting at or after start
    if first + HOUR > end:
        return {}

    def read() -> dict[datetime, tuple]:
        with binary_cursor() as cur:  # binary results: bytea as stored, not hex text twice its size
            cur.execute(HOURS_SQL, [server_id, first, end - HOUR], binary=True)
            stored = cur.fetchall()
        held = reads_per_hour(server_id, start, end, [row[0] for row in stored]) if stored else []
        return {hour: (n, ids, data)
                for (hour, reads, n, ids, data), has in zip(stored, held, strict=True) if reads == has}

    return _HOURS.get((server_id, first, end), read)


def reads_per_hour(server_id: int, start: datetime, end: datetime, hours: list[datetime]) -> list[int]:
    """The reads stored in each hour (hour, hour + 1 h] inside (start, end], counted in the range's times (the
    page's list of its reads, kept for the request) rather than by PostgreSQL over the range again."""
    at = read_times(server_id, start, end)[0]
    begins = np.array([micros(hour) for hour in hours], np.int64)
    return (np.searchsorted(at, begins + HOUR // TICK, "right") - np.searchsorted(at, begins, "right")).tolist()


KEEP_HOURS, KEEP_HOURS_S = 8, 5.0  # a request keeps its last 8 ranges' rollups and times, each for 5 s at most
# A range's usable rollups and its reads' times: the Statements tab and a statement's page read them for the
# totals, then the lines.
_HOURS: RequestMemo[dict[datetime, tuple]] = RequestMemo(KEEP_HOURS_S, KEEP_HOURS)
_TIMES: RequestMemo[tuple[np.ndarray, list[int]]] = RequestMemo(KEEP_HOURS_S, KEEP_HOURS)


def keep_hours(**_signal) -> None:
    """A request starts: from now on a range's rollups and times read again come from their first read."""
    _HOURS.start()
    _TIMES.start()


def stop_keeping_hours(**_signal) -> None:
    _HOURS.stop()
    _TIMES.stop()


def wrote() -> None:
    """This process wrote digest reads or rollups (store.statements, store.statement_hours): a range's usable
    rollups and reads' times are read again."""
    _HOURS.changed()
    _TIMES.changed()


def segments(start: datetime, end: datetime, hours: list[datetime]) -> list[tuple[datetime, datetime]]:
    """(start, end] without the hours (hour, hour + 1 h], as (a, b] ranges; adjacent hours leave no range."""
    out, at = [], start
    for hour in hours:
        if hour > at:
            out.append((at, hour))
        at = hour + HOUR
    if end > at:
        out.append((at, end))
    return out


def totals(server_id: int, start: datetime, end: datetime, digest_ids: list[int] | None = None,
           rollups: bool = True) -> list[DigestTotals]:
    """Every digest's sums over the range (the 'everything else' row included), in no particular order."""
    found = pieces(server_id, start, end, rollups, digest_ids)
    found = found.take(np.lexsort((found.key, found.ids)))  # by id, each digest's rows in time order
    if not len(found.ids):
        return []
    starts = np.flatnonzero(np.r_[True, found.ids[1:] != found.ids[:-1]])
    sums = exact_sums(found.sums, starts)
    reads_of = np.add.reduceat(found.reads, starts).tolist()
    maxes = np.maximum.reduceat(found.max_ps, starts).tolist()
    firsts, lasts = np.minimum.reduceat(found.first, starts).tolist(), np.maximum.reduceat(found.last, starts).tolist()
    texts = texts_of(found.ids[starts].tolist())
    p95s, p99s = (newest(found.quantiles, found.missing, starts, column) for column in (0, 1))
    out = []
    for k, first in enumerate(starts.tolist()):
        digest_id = int(found.ids[first])
        schema, digest, text, sample = texts.get(digest_id, ("", "", "", ""))
        out.append(DigestTotals(
            digest_id, schema, digest, text, sample, int(reads_of[k]),
            dict(zip(COUNTERS, sums[k], strict=True)), int(maxes[k]), p95s[k], p99s[k],
            EPOCH + firsts[k] * TICK, EPOCH + lasts[k] * TICK, is_monitoring_read(schema, text)))
    return out


def column_sums(server_id: int, start: datetime, end: datetime, column: str) -> dict[int, int]:
    """Each digest's exact sum of one counter column over the range (totals()' sums[column], from the same rollups
    and reads): only that column is put together, the others only delimited. The waits page names the statements
    behind its top wait by one column: a week's totals of every column had cost it a third of its time."""
    at = COUNTERS.index(column)  # a rollup's columns start with the counters, in the same order
    rolled = rolled_hours(server_id, start, end)
    parts = [decode_rows(list(rolled.values()), HOUR_WIDTH, None, [at])[1:3]] if rolled else []
    with binary_cursor() as cur:  # one statement for every range between the hours, bytea as stored
        stored = _reads_in(cur, server_id, segments(start, end, sorted(rolled)))
    parts += [decode_rows([row[2:] for row in part], WIDTH, None, [at])[1:3] for part in chunks(stored)]
    if not parts or not sum(len(ids) for ids, _ in parts):
        return {}
    ids = np.concatenate([ids for ids, _ in parts])
    values = np.concatenate([values for _, values in parts])
    order = np.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return {int(i): s[0] for i, s in zip(ids[starts].tolist(), exact_sums(values, starts), strict=True)}


def exact_sums(values: np.ndarray, starts: np.ndarray) -> list[list[int]]:
    """Per group of rows (starting at starts), each column's sum as Python ints (high and low halves apart)."""
    high = np.add.reduceat(values >> np.int64(32), starts, axis=0).tolist()
    low = np.add.reduceat(values & LOW, starts, axis=0).tolist()
    return [[(h << 32) + lo for h, lo in zip(hs, ls, strict=True)] for hs, ls in zip(high, low, strict=True)]


def newest(values: np.ndarray, nulls: np.ndarray, starts: np.ndarray, column: int) -> list[int | None]:
    """Per group of rows in time order (starting at starts), the column's value in its last row where it is not
    NULL (None where it is NULL in every row): the newest reading of a level."""
    last = np.maximum.reduceat(np.where(nulls[:, column], -1, np.arange(len(values))), starts)
    return [int(v) if i >= 0 else None for i, v in zip(last.tolist(), values[last, column].tolist(), strict=True)]


def texts_of(digest_ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
    with connection.cursor() as cur:
        cur.execute(TEXTS_SQL, [digest_ids])
        return {row[0]: tuple(row[1:]) for row in cur.fetchall()}


def reads(server_id: int, start: datetime, end: datetime) -> list[tuple[datetime, int]]:
    """(interval end, interval ms) of each stored read in the range."""
    at, ms = read_times(server_id, start, end)
    return list(zip(datetimes(at), ms, strict=True))  # not a timestamp text parsed per read


def read_times(server_id: int, start: datetime, end: datetime) -> tuple[np.ndarray, list[int]]:
    """(ends as epoch microseconds, intervals in ms) of the stored reads in (start, end], in time order."""
    def read() -> tuple[np.ndarray, list[int]]:
        with connection.cursor() as cur:
            cur.execute(TIMES_SQL, [server_id, start, end])
            found = cur.fetchall()
        return np.array([row[0] for row in found], np.int64), [row[1] for row in found]

    return _TIMES.get((server_id, start, end), read)


def lines(server_id: int, digest_ids: list[int], start: datetime, end: datetime) -> dict[int, list[tuple]]:
    """digest id -> [(ts, interval_ms, execs, time_ps, rows_examined, rows_sent, errors)] in time order."""
    found: dict[int, list[tuple]] = {digest_id: [] for digest_id in digest_ids}
    if not digest_ids:
        return found
    with connection.cursor() as cur:
        cur.execute(READS_SQL, [server_id, start, end])
        stored = cur.fetchall()
    columns = [COUNTERS.index(name) for name in ("execs", "time_ps", "rows_examined", "rows_sent", "errors")]
    wanted = np.array(sorted(set(digest_ids)), np.int64)
    for part in chunks(stored):
        read, ids, values, _ = decode_rows([row[2:] for row in part], WIDTH, wanted, columns)
        for r, digest_id, row in zip(read.tolist(), ids.tolist(), values.tolist(), strict=True):
            found[digest_id].append((part[r][0], part[r][1], *row))
    return found


def chunks(stored: list[tuple]) -> list[list[tuple]]:
    """The reads in groups decoded at once: one call per group, and memory bounded (a week is 10,080 reads)."""
    return [stored[i:i + DECODE_READS] for i in range(0, len(stored), DECODE_READS)]


def binned(server_id: int, digest_ids: list[int], start: datetime, end: datetime, count: int,
           columns: tuple[str, ...] = ("execs", "time_ps")) -> dict[int, list[list[int]]]:
    """digest id -> per bin of (start, end] in count equal bins, the columns summed over the reads ending in it.

    A read goes to the bin its end falls in, as dashboards.analysis.statements.bin_index puts it. An hour's
    rollup stands for its reads where they all fall in one bin (a week in 40 bins reads most hours rolled
    up); where they fall in more, the rollup less the reads outside the bin holding most of them goes to
    that bin, and those reads are decoded (a week in 150 bins: nine hours in ten, about a quarter of their
    reads each; a day in 40 bins: every hour, under half of its reads). The other reads are decoded.
    Sums exact (high and low 32 bits apart).
    """
    bins = Binning(start, (end - start) / count, count)
    wanted = np.array(sorted(set(digest_ids)), np.int64)
    high, low = (np.zeros((len(wanted), count, len(columns)), np.int64) for _ in range(2))
    rolled = rolled_hours(server_id, start, end)
    hour_columns = [HOUR_COLUMNS.index(name) for name in columns]
    outside = _outside_reads(server_id, end, bins, {h for h in rolled if bins.of(h + TICK) != bins.of(h + HOUR)})
    hour_bins = np.array([outside[h][1] if h in outside else bins.of(h + HOUR) for h in rolled], np.int64)
    hour, ids, values, _ = decode_rows(list(rolled.values()), HOUR_WIDTH, wanted, hour_columns)
    add_rows(high, low, wanted, ids, hour_bins[hour], values)
    taken = sorted((a, b, to) for ranges, to in outside.values() for a, b in ranges)  # the reads taken off, in order
    ranges = segments(start, end, sorted(rolled)) + [(a, b) for a, b, _ in taken]
    side_lo, side_hi = (np.array([micros(a) for a, _, _ in taken], np.int64),
                        np.array([micros(b) for _, b, _ in taken], np.int64))
    rollup_bin = np.array([to for _, _, to in taken] + [-1], np.int64)  # -1: a read of no side
    read_columns = [COUNTERS.index(name) for name in columns]
    with binary_cursor() as cur:  # binary results: bytea as stored, not hex text twice its size
        for part in chunks(_reads_in(cur, server_id, ranges)):
            read, ids, values, _ = decode_rows([row[2:] for row in part], WIDTH, wanted, read_columns)
            at = np.array([row[0] for row in part], np.int64)
            add_rows(high, low, wanted, ids, bins.of_micros(at)[read], values)
            after = np.searchsorted(side_hi, at)  # the first side ending at or after each read
            within = after < len(taken)
            within[within] = at[within] > side_lo[after[within]]
            less = rollup_bin[np.where(within, after, len(taken))][read]  # its rollup's bin: the read is taken off
            off = less >= 0
            add_rows(high, low, wanted, ids[off], less[off], -values[off])
    return {int(digest_id): [[(h << 32) + lo for h, lo in zip(hs, ls, strict=True)]
                             for hs, ls in zip(high[k].tolist(), low[k].tolist(), strict=True)]
            for k, digest_id in enumerate(wanted.tolist())}


@dataclass(frozen=True)
class Binning:
    """Equal bins over (start, start + width * count]: the bin of a read's end, as bin_index() puts it."""

    start: datetime
    width: timedelta
    count: int

    def of(self, ts: datetime) -> int:
        return min(self.count - 1, max(0, int((ts - self.start) / self.width)))

    def of_micros(self, us: np.ndarray) -> np.ndarray:
        """of() of epoch microseconds: the same float quotient (of two integers below 2**53), truncated."""
        quotient = (us - micros(self.start)).astype(np.float64) / float(self.width // TICK)
        return np.clip(np.trunc(quotient), 0, self.count - 1).astype(np.int64)


def _outside_reads(server_id: int, end: datetime, bins: Binning, hours: set[datetime]
                   ) -> dict[datetime, tuple[list[tuple[datetime, datetime]], int]]:
    """Per rolled hour whose reads may fall in several bins: the (a, b] ranges of its reads outside the bin
    holding most of them (none, before and after it, or both), and that bin, where the rollup less them goes."""
    if not hours:
        return {}
    at = read_times(server_id, bins.start, end)[0]  # the whole range's, as the page's totals read them
    placed = bins.of_micros(at)
    out: dict[datetime, tuple[list[tuple[datetime, datetime]], int]] = {}
    for hour in sorted(hours):
        lo, hi = np.searchsorted(at, [micros(hour) + 1, micros(hour + HOUR) + 1])  # (hour, hour + 1 h]
        if lo == hi:  # no read stored (a rollup holds one at least): its bin takes nothing
            out[hour] = ([], bins.of(hour + HOUR))
            continue
        found, first, sizes = np.unique(placed[lo:hi], return_index=True, return_counts=True)
        k = int(np.argmax(sizes))
        inside = (lo + int(first[k]), lo + int(first[k] + sizes[k]))  # its reads in that bin: at[inside[0]:inside[1]]
        ranges = [(hour, from_micros(int(at[inside[0] - 1])))] if inside[0] > lo else []
        ranges += [(from_micros(int(at[inside[1] - 1])), hour + HOUR)] if inside[1] < hi else []
        out[hour] = (ranges, int(found[k]))
    return out


def _reads_in(cur, server_id: int, ranges: list[tuple[datetime, datetime]]) -> list[tuple]:
    """The stored reads (end as epoch microseconds, interval ms, n, ids, data) in the (a, b] ranges, in time
    order, in one statement."""
    if not ranges:
        return []
    cur.execute(READS_IN_SQL, [[a for a, _ in ranges], [b for _, b in ranges], server_id,
                               min(a for a, _ in ranges), max(b for _, b in ranges)], binary=True)
    return cur.fetchall()


def add_rows(high: np.ndarray, low: np.ndarray, wanted: np.ndarray, ids: np.ndarray, bins: np.ndarray,
             values: np.ndarray) -> None:
    """Add the rows of the wanted digests into their (digest, bin) cells, high and low 32 bits apart."""
    keep = np.isin(ids, wanted)
    at = (np.searchsorted(wanted, ids[keep]), bins[keep])
    np.add.at(high, at, values[keep] >> np.int64(32))
    np.add.at(low, at, values[keep] & LOW)


def decode_rows(stored: list[tuple], width: int, wanted: np.ndarray | None = None, columns: list[int] | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(the stored row each digest row came from, digest ids, rows x columns figures, their null mask) of stored
    (n, ids, data) matrices `width` wide (reads or hours), decoded at once: their varints are one stream. Only
    the wanted digests' rows and the columns given (all, for None) are put together, the rest only delimited:
    a page of one digest decodes a two-hundredth of a week."""
    counts = np.array([row[0] for row in stored], np.int64)
    ids = codec.decode(b"".join(bytes(row[1]) for row in stored))[0]
    data = b"".join(bytes(row[2]) for row in stored)
    source = np.repeat(np.arange(len(stored)), counts)
    if wanted is None and columns is None:
        values, nulls = codec.decode(data)
        return source, ids, values.reshape(len(ids), width), nulls.reshape(len(ids), width)
    rows = np.arange(len(ids)) if wanted is None else np.flatnonzero(np.isin(ids, wanted))
    columns = list(range(width)) if columns is None else columns
    values, nulls = codec.decode_at(data, (rows[:, None] * width + np.array(columns, np.int64)).ravel())
    shape = (len(rows), len(columns))
    return source[rows], ids[rows], values.reshape(shape), nulls.reshape(shape)


def text(digest_id: int) -> Text | None:
    with connection.cursor() as cur:
        cur.execute(TEXT_SQL, [digest_id])
        row = cur.fetchone()
    return None if row is None else Text(*row)


def seen_in(server_id: int, digest_id: int, ranges: list[tuple[datetime, datetime]]) -> list[float | None]:
    """Per (a, b] range, whether the digest has a row in a read ending in it (only the ids are decoded), in one
    statement: None where not, else the seconds the latest-beginning such read began before a (0 where one began
    inside: a read counts the interval before it, so one that began before a may hold statements run before a)."""
    if not ranges:
        return []
    with binary_cursor() as cur:
        cur.execute(IDS_IN_SQL, [[a for a, _ in ranges], [b for _, b in ranges], server_id,
                                 min(a for a, _ in ranges), max(b for _, b in ranges)], binary=True)
        stored = cur.fetchall()
    ids = codec.decode(b"".join(row[2] for row in stored))[0]
    counts = [row[1] for row in stored]
    ranges_of = np.repeat(np.array([row[0] for row in stored], np.int64), counts)
    lead = np.repeat(np.array([max(0.0, float(row[3])) for row in stored]), counts)
    found: dict[int, float] = {}
    for k, before in zip(ranges_of[ids == digest_id].tolist(), lead[ids == digest_id].tolist(), strict=True):
        found[k] = min(before, found.get(k, before))
    return [found.get(k + 1) for k in range(len(ranges))]


def covering(times: list[tuple[int, datetime, datetime]]) -> list[datetime | None]:
    """Per (server id, time, latest): the end of the stored read whose interval (ts - interval, ts] holds the
    time, where that read ends by `latest`; None where none does (no read yet, or a gap in the reads). One
    statement for all."""
    if not times:
        return []
    with connection.cursor() as cur:
        cur.execute(COVERING_SQL, [[sid for sid, _, _ in times], [at for _, at, _ in times],
                                   [latest for _, _, latest in times], min(at for _, at, _ in times),
                                   max(latest for _, _, latest in times)])
        found = {k: (ts, ms) for k, ts, ms in cur.fetchall()}
    out: list[datetime | None] = []
    for k, (_sid, at, _latest) in enumerate(times, start=1):
        ts, ms = found.get(k, (None, 0))
        out.append(ts if ts is not None and ts - timedelta(milliseconds=ms) < at else None)
    return out


@dataclass
class StoredRead:
    """One stored read as written: its end, its interval, and per digest (schema, digest) its WIDTH figures
    (None where a quantile is NULL)."""

    ts: datetime
    interval_ms: int
    rows: list[tuple[tuple[str, str], list[int | None]]]


def stored_reads(server_id: int, start: datetime, end: datetime
                 ) -> tuple[list[StoredRead], dict[tuple[str, str], tuple[str, str]]]:
    """The reads of the range as stored (to write them elsewhere: store.statements.write), and the texts
    of their digests: (schema, digest) -> (digest text, sample text)."""
    with connection.cursor() as cur:
        cur.execute(READS_SQL, [server_id, start, end])
        stored = cur.fetchall()
    decoded_reads = [(ts, ms, *decode_read(n, bytes(ids), bytes(data))) for ts, ms, n, ids, data in stored]
    texts = texts_of(sorted({int(i) for read in decoded_reads for i in read[2].tolist()}))
    out = []
    for ts, ms, ids, values, nulls in decoded_reads:
        rows = [((texts[i][0], texts[i][1]), [None if null else int(v) for v, null in zip(vs, ns, strict=True)])
                for i, vs, ns in zip(ids.tolist(), values.tolist(), nulls.tolist(), strict=True) if i in texts]
        out.append(StoredRead(ts, ms, rows))
    return out, {(s, d): (text, sample) for s, d, text, sample in texts.values()}
