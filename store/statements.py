"""Statement digests' per-interval rows: written in one statement per batch, read summed over a range.

The sample store keeps fixed metric catalogs per source; digests are an open-ended keyed
set, so they get a table of their own: one narrow row per server, interval end and digest
(about 200 per server per read), daily partitions dropped by STORE_STATEMENTS_RETENTION_DAYS.
A digest's text is stored once, in store_statement_text, keyed by (schema, digest). Sums
over a range are done by PostgreSQL on bigint columns: sum(bigint) is numeric, so picosecond
totals never overflow, and come back as Python ints.
"""

from dataclasses import dataclass
from datetime import datetime

from store import partitions
from store.binary_params import fetch_all

# The summed columns, in the order the collector counts them (collectors.statement_rows).
COUNTERS = ("execs", "time_ps", "lock_ps", "errors", "warnings", "rows_affected", "rows_sent", "rows_examined",
            "tmp_disk_tables", "no_index", "no_good_index")
LEVELS = ("max_ps", "p95_ps", "p99_ps")  # as read: since the digest's FIRST_SEEN, not per interval
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
INSERT_ROWS = """
INSERT INTO store_statement (ts, server_id, digest_id, interval_ms, {columns})
SELECT * FROM unnest(%b::timestamptz[], %b::int[], %b::int[], %b::int[], {arrays})
ON CONFLICT DO NOTHING
""".format(columns=", ".join(COUNTERS + LEVELS), arrays=", ".join(["%b::bigint[]"] * (len(COUNTERS) + len(LEVELS))))


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
    """Store the rows (a row already stored is kept as it was); texts: (schema, digest) -> (text, sample)."""
    if not rows:
        return 0
    ids = digest_ids({(r.schema, r.digest) for r in rows}, texts)
    for day in {partitions.STATEMENT.floor(r.ts) for r in rows}:
        partitions.ensure(partitions.STATEMENT, day)
    columns = [[r.ts for r in rows], [r.server_id for r in rows], [ids[(r.schema, r.digest)] for r in rows],
               [r.interval_ms for r in rows]]
    columns += [[r.counts[i] for r in rows] for i in range(len(COUNTERS))]
    columns += [[r.max_ps for r in rows], [r.p95_ps for r in rows], [r.p99_ps for r in rows]]
    fetch_all(INSERT_ROWS, columns)
    return len(rows)


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
