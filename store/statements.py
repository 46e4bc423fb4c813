"""Statement digests' per-interval rows: one compact row per server and read, written in one statement per batch.

The sample store keeps fixed metric catalogs per source; digests are an open-ended keyed
set, so they get a table of their own: per server and read (about 200 digests), the digest
ids and an n x 14 matrix of the interval's figures (COUNTERS then LEVELS), both as zigzag
varints (store.codec): small counts take a byte, picosecond times five to seven, and the
row's overhead is shared by its digests (docs/benchmarks.md, "Statement digests"). Daily
partitions dropped by STORE_STATEMENTS_RETENTION_DAYS. A digest's text is stored once, in
store_statement_text, keyed by (schema, digest); reads decode and sum exactly
(store.statement_reads).
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from store import codec, partitions
from store.binary_params import fetch_all

# The summed columns, in the order the collector counts them (collectors.statement_rows).
COUNTERS = ("execs", "time_ps", "lock_ps", "errors", "warnings", "rows_affected", "rows_sent", "rows_examined",
            "tmp_disk_tables", "no_index", "no_good_index")
LEVELS = ("max_ps", "p95_ps", "p99_ps")  # as read: since the digest's FIRST_SEEN, not per interval
WIDTH = len(COUNTERS) + len(LEVELS)  # columns of a read's matrix
REST = ("", "*")  # (schema, digest) of each interval's row summing the digests not kept
NULL_DIGEST = ("", "")  # the table's row for statements that found it full
FIXED_TEXTS = {REST: "(all other statements: the digests not among the interval's top N, summed)",
               NULL_DIGEST: "(statements counted without a digest row of their own: the digest table was full)"}

# New digests' ids (no-op for known ones); a text arrives once, for a digest stored without one.
UPSERT_TEXTS = """
INSERT INTO store_statement_text (schema_name, digest, digest_text, sample_text)
SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::text[])
ON CONFLICT (schema_name, digest) DO UPDATE
    SET digest_text = EXCLUDED.digest_text, sample_text = EXCLUDED.sample_text
    WHERE store_statement_text.digest_text = '' AND EXCLUDED.digest_text <> ''
"""
SELECT_IDS = """
SELECT t.id, t.schema_name, t.digest FROM store_statement_text t
JOIN unnest(%b::text[], %b::text[]) AS k(schema_name, digest) USING (schema_name, digest)
"""
# The hours that got reads (store.statement_hours rolls them up, again, once they are closed).
MARK_HOURS = """
INSERT INTO store_statement_pending (server_id, hour)
SELECT * FROM unnest(%b::int[], %b::timestamptz[])
ON CONFLICT DO NOTHING
"""
# Per digest of an hour's rollup: COUNTERS summed, then these (first_us and last_us from the hour's start).
HOUR_COLUMNS = (*COUNTERS, "reads", "max_ps", "p95_ps", "p99_ps", "first_us", "last_us")
HOUR_WIDTH = len(HOUR_COLUMNS)
HOUR = timedelta(hours=1)
# One row per server and read; a read written twice is stored once.
INSERT_READS = """
INSERT INTO store_statement (ts, server_id, interval_ms, n, ids, data)
SELECT * FROM unnest(%b::timestamptz[], %b::int[], %b::int[], %b::int[], %b::bytea[], %b::bytea[])
ON CONFLICT DO NOTHING
RETURNING n
"""


@dataclass
class StatementRow:
    server_id: int
    ts: datetime  # the end of the interval (the read)
    interval_ms: int
    schema: str
    digest: str
    counts: tuple[int, ...]  # in the order of COUNTERS
    max_ps: int
    p95_ps: int | None = None
    p99_ps: int | None = None


def write(rows: list[StatementRow], texts: dict[tuple[str, str], tuple[str, str]]) -> int:
    """Store the rows, one compact row per server and read (a read already stored is kept as it was);
    texts: (schema, digest) -> (text, sample). Returns the digest rows stored (not those of reads kept)."""
    from store import statement_reads  # here: statement_reads imports this module's columns

    if not rows:
        return 0
    ids = digest_ids({(r.schema, r.digest) for r in rows}, texts)
    reads: dict[tuple[int, datetime, int], list[StatementRow]] = defaultdict(list)
    for row in rows:
        reads[(row.server_id, row.ts, row.interval_ms)].append(row)
    for day in {partitions.STATEMENT.floor(ts) for _, ts, _ in reads}:
        partitions.ensure(partitions.STATEMENT, day)
    keys = sorted(reads, key=lambda k: (k[0], k[1]))  # key order: overlapping writers wait, never deadlock
    encoded = [encode_read([ids[(r.schema, r.digest)] for r in reads[k]], reads[k]) for k in keys]
    stored = fetch_all(INSERT_READS, [[k[1] for k in keys], [k[0] for k in keys], [k[2] for k in keys],
                                      [len(reads[k]) for k in keys], [e[0] for e in encoded], [e[1] for e in encoded]])
    statement_reads.wrote()  # an hour's rollup is no longer used with a read added to it
    hours = sorted({(server_id, hour_of(ts)) for server_id, ts, _ in keys})
    fetch_all(MARK_HOURS, [[h[0] for h in hours], [h[1] for h in hours]])
    return sum(n for (n,) in stored)


def hour_of(ts: datetime) -> datetime:
    """The hour whose rollup holds a read ending at ts: (hour, hour + 1 h], as a range holds its reads."""
    return (ts.astimezone(UTC) - timedelta(microseconds=1)).replace(minute=0, second=0, microsecond=0)


def encode_read(ids: list[int], rows: list[StatementRow]) -> tuple[bytes, bytes]:
    """(the digest ids, the n x WIDTH matrix row by row) as varints; a missing quantile is a NULL.

    Zigzag varints hold values below 2**62: one read's delta of picoseconds up to 53 days of statement time.
    """
    matrix = np.array([[*r.counts, r.max_ps, r.p95_ps or 0, r.p99_ps or 0] for r in rows], dtype=np.int64)
    nulls = np.zeros(matrix.shape, dtype=bool)
    nulls[:, -2] = [r.p95_ps is None for r in rows]
    nulls[:, -1] = [r.p99_ps is None for r in rows]
    return codec.encode(np.array(ids, dtype=np.int64)), codec.encode(matrix.ravel(), nulls.ravel())


def encode_hour(ids: list[int], rows: list[list[int | None]]) -> tuple[bytes, bytes]:
    """(the digest ids, the n x HOUR_WIDTH matrix) as varints; None (a quantile never read) is a NULL."""
    matrix = np.array([[0 if v is None else v for v in row] for row in rows], dtype=np.int64)
    nulls = np.array([[v is None for v in row] for row in rows], dtype=bool)
    return codec.encode(np.array(ids, dtype=np.int64)), codec.encode(matrix.ravel(), nulls.ravel())


def decode_read(n: int, ids: bytes, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(digest ids, n x WIDTH int64 matrix, its null mask) of one stored read."""
    values, nulls = codec.decode(data)
    return codec.decode(ids)[0], values.reshape(n, WIDTH), nulls.reshape(n, WIDTH)


def digest_ids(keys: set[tuple[str, str]], texts: dict[tuple[str, str], tuple[str, str]]) -> dict:
    """(schema, digest) -> id, creating the missing ones and filling in texts not stored yet."""
    found = select_ids(keys)
    wanted = (keys - found.keys()) | texts.keys()
    if wanted:
        order = sorted(wanted)  # the same order in every writer: concurrent upserts do not deadlock
        got = [texts.get(k, (FIXED_TEXTS.get(k, ""), "")) for k in order]
        fetch_all(UPSERT_TEXTS, [[k[0] for k in order], [k[1] for k in order], [clean(g[0]) for g in got],
                                 [clean(g[1]) for g in got]])
        found.update(select_ids(wanted))
    return found


def select_ids(keys) -> dict[tuple[str, str], int]:
    keys = sorted(keys)
    rows = fetch_all(SELECT_IDS, [[k[0] for k in keys], [k[1] for k in keys]])
    return {(schema, digest): digest_id for digest_id, schema, digest in rows}


def clean(text: str) -> str:
    return text.replace("\x00", "")  # PostgreSQL text cannot hold NUL
