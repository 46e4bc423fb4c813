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
from datetime import datetime

import numpy as np
from django.db import connection

from store import codec
from store.statements import COUNTERS, REST, decode_read

READS_SQL = ("SELECT ts, interval_ms, n, ids, data FROM store_statement"
             " WHERE server_id = %s AND ts > %s AND ts <= %s ORDER BY ts")
TIMES_SQL = "SELECT ts, interval_ms FROM store_statement WHERE server_id = %s AND ts > %s AND ts <= %s ORDER BY ts"
IDS_SQL = "SELECT n, ids FROM store_statement WHERE server_id = %s AND ts > %s AND ts <= %s"
TEXTS_SQL = "SELECT id, schema_name, digest, digest_text, sample_text FROM store_statement_text WHERE id = ANY(%s)"
TEXT_SQL = ("SELECT id, schema_name, digest, digest_text, sample_text, first_stored FROM store_statement_text"
            " WHERE id = %s")
MAX, P95, P99 = len(COUNTERS), len(COUNTERS) + 1, len(COUNTERS) + 2  # the levels' columns
LOW = np.int64(0xFFFFFFFF)


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


@dataclass
class Decoded:
    """Every digest row of a range's reads, stacked: which read each came from, its id, figures, nulls."""

    times: list[datetime]  # per read
    read: np.ndarray  # per row: index into times
    ids: np.ndarray
    values: np.ndarray  # rows x WIDTH
    nulls: np.ndarray


def decoded(server_id: int, start: datetime, end: datetime) -> Decoded:
    with connection.cursor() as cur:
        cur.execute(READS_SQL, [server_id, start, end])
        stored = cur.fetchall()
    parts = [decode_read(n, bytes(ids), bytes(data)) for _, _, n, ids, data in stored]
    if not parts:
        empty = np.empty((0, MAX + 3), np.int64)
        return Decoded([], np.empty(0, np.int64), np.empty(0, np.int64), empty, empty.astype(bool))
    return Decoded([row[0] for row in stored], np.repeat(np.arange(len(parts)), [len(p[0]) for p in parts]),
                   np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                   np.concatenate([p[2] for p in parts]))


def totals(server_id: int, start: datetime, end: datetime, digest_ids: list[int] | None = None) -> list[DigestTotals]:
    """Every digest's sums over the range (the 'everything else' row included), in no particular order."""
    found = decoded(server_id, start, end)
    keep = np.ones(len(found.ids), bool) if digest_ids is None else np.isin(found.ids, list(digest_ids))
    order = np.argsort(found.ids[keep], kind="stable")  # by id, each digest's reads in time order
    ids, values = found.ids[keep][order], found.values[keep][order]
    nulls, reads = found.nulls[keep][order], found.read[keep][order]
    if not len(ids):
        return []
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    sums = exact_sums(values[:, :MAX], starts)
    texts = texts_of(ids[starts].tolist())
    out = []
    for k, first in enumerate(starts.tolist()):
        last = (starts[k + 1] if k + 1 < len(starts) else len(ids)) - 1
        out.append(DigestTotals(
            int(ids[first]), *texts.get(int(ids[first]), ("", "", "", "")), int(last - first + 1),
            dict(zip(COUNTERS, sums[k], strict=True)), int(values[first:last + 1, MAX].max()),
            newest(values, nulls, first, last, P95), newest(values, nulls, first, last, P99),
            found.times[reads[first]], found.times[reads[last]]))
    return out


def exact_sums(values: np.ndarray, starts: np.ndarray) -> list[list[int]]:
    """Per group of rows (starting at starts), each column's sum as Python ints (high and low halves apart)."""
    high = np.add.reduceat(values >> np.int64(32), starts, axis=0).tolist()
    low = np.add.reduceat(values & LOW, starts, axis=0).tolist()
    return [[(h << 32) + lo for h, lo in zip(hs, ls, strict=True)] for hs, ls in zip(high, low, strict=True)]


def newest(values: np.ndarray, nulls: np.ndarray, first: int, last: int, column: int) -> int | None:
    for i in range(last, first - 1, -1):
        if not nulls[i, column]:
            return int(values[i, column])
    return None


def texts_of(digest_ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
    with connection.cursor() as cur:
        cur.execute(TEXTS_SQL, [digest_ids])
        return {row[0]: tuple(row[1:]) for row in cur.fetchall()}


def reads(server_id: int, start: datetime, end: datetime) -> list[tuple[datetime, int]]:
    """(interval end, interval ms) of each stored read in the range."""
    with connection.cursor() as cur:
        cur.execute(TIMES_SQL, [server_id, start, end])
        return cur.fetchall()


def lines(server_id: int, digest_ids: list[int], start: datetime, end: datetime) -> dict[int, list[tuple]]:
    """digest id -> [(ts, interval_ms, execs, time_ps, rows_examined, rows_sent, errors)] in time order."""
    found: dict[int, list[tuple]] = {digest_id: [] for digest_id in digest_ids}
    if not digest_ids:
        return found
    with connection.cursor() as cur:
        cur.execute(READS_SQL, [server_id, start, end])
        stored = cur.fetchall()
    columns = [COUNTERS.index(name) for name in ("execs", "time_ps", "rows_examined", "rows_sent", "errors")]
    for ts, interval_ms, n, ids, data in stored:
        read_ids, values, _ = decode_read(n, bytes(ids), bytes(data))
        for i in np.flatnonzero(np.isin(read_ids, digest_ids)).tolist():
            found[int(read_ids[i])].append((ts, interval_ms, *(int(v) for v in values[i, columns])))
    return found


def text(digest_id: int) -> Text | None:
    with connection.cursor() as cur:
        cur.execute(TEXT_SQL, [digest_id])
        row = cur.fetchone()
    return None if row is None else Text(*row)


def seen_in(server_id: int, digest_id: int, ranges: list[tuple[datetime, datetime]]) -> list[bool]:
    """Whether the digest has a row in each range (only the ids are decoded)."""
    found = []
    with connection.cursor() as cur:
        for start, end in ranges:
            cur.execute(IDS_SQL, [server_id, start, end])
            found.append(any(digest_id in decode_read_ids(ids) for _, ids in cur.fetchall()))
    return found


def decode_read_ids(ids) -> set[int]:
    return set(codec.decode(bytes(ids))[0].tolist())


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
