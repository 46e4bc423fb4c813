"""Reading statement digests back: each digest's sums over a range, its line over time, its text.

A range holds the rows whose interval ended in it, start < ts <= end (as the pages' exact interval
totals, dashboards.reads.interval_totals).
Sums are PostgreSQL's numeric sums of the bigint deltas, returned as Python ints: exactly
the sum an engineer would add up from the rows. max_ps, p95_ps and p99_ps are levels the
server keeps since the digest's FIRST_SEEN: the range's newest reading of each is given.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from store.statements import COUNTERS, REST

SUMS = ", ".join(f"sum(s.{name})" for name in COUNTERS)
# One row per digest with rows in the range, with its text.
TOTALS_SQL = f"""
SELECT s.digest_id, t.schema_name, t.digest, t.digest_text, t.sample_text, count(*), {SUMS},
       max(s.max_ps), (array_agg(s.p95_ps ORDER BY s.ts DESC))[1], (array_agg(s.p99_ps ORDER BY s.ts DESC))[1],
       min(s.ts), max(s.ts)
FROM store_statement s JOIN store_statement_text t ON t.id = s.digest_id
WHERE s.server_id = %s AND s.ts > %s AND s.ts <= %s {{only}}
GROUP BY s.digest_id, t.schema_name, t.digest, t.digest_text, t.sample_text
"""
# The reads of the range (interval ends and lengths), whatever digests they kept.
READS_SQL = ("SELECT DISTINCT ts, interval_ms FROM store_statement"
             " WHERE server_id = %s AND ts > %s AND ts <= %s ORDER BY ts")
# Given digests' rows over the range, for their lines.
LINES_SQL = ("SELECT digest_id, ts, interval_ms, execs, time_ps, rows_examined, rows_sent, errors FROM store_statement"
             " WHERE server_id = %s AND ts > %s AND ts <= %s AND digest_id = ANY(%s) ORDER BY digest_id, ts")
TEXT_SQL = ("SELECT id, schema_name, digest, digest_text, sample_text, first_stored FROM store_statement_text"
            " WHERE id = %s")
# Whether a digest has rows in each of several ranges (the runs it appeared in).
SEEN_IN_SQL = ("SELECT EXISTS (SELECT 1 FROM store_statement WHERE server_id = %s AND digest_id = %s"
               " AND ts > %s AND ts <= %s)")


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


def totals(server_id: int, start: datetime, end: datetime, digest_ids: list[int] | None = None) -> list[DigestTotals]:
    """Every digest's sums over the range (the 'everything else' row included), in no particular order."""
    only, params = "", [server_id, start, end]
    if digest_ids is not None:
        only, params = "AND s.digest_id = ANY(%s)", params + [list(digest_ids)]
    with connection.cursor() as cur:
        cur.execute(TOTALS_SQL.format(only=only), params)
        return [as_totals(row) for row in cur.fetchall()]


def as_totals(row: tuple) -> DigestTotals:
    n = len(COUNTERS)
    sums = {name: int(value) for name, value in zip(COUNTERS, row[6:6 + n], strict=True)}
    max_ps, p95, p99, first, last = row[6 + n:]
    return DigestTotals(row[0], row[1], row[2], row[3], row[4], row[5], sums, int(max_ps),
                        None if p95 is None else int(p95), None if p99 is None else int(p99), first, last)


def reads(server_id: int, start: datetime, end: datetime) -> list[tuple[datetime, int]]:
    """(interval end, interval ms) of each stored read in the range."""
    with connection.cursor() as cur:
        cur.execute(READS_SQL, [server_id, start, end])
        return cur.fetchall()


def lines(server_id: int, digest_ids: list[int], start: datetime, end: datetime) -> dict[int, list[tuple]]:
    """digest id -> [(ts, interval_ms, execs, time_ps, rows_examined, rows_sent, errors)] in time order."""
    found: dict[int, list[tuple]] = {digest_id: [] for digest_id in digest_ids}
    if not digest_ids:
        return found
    with connection.cursor() as cur:
        cur.execute(LINES_SQL, [server_id, start, end, list(digest_ids)])
        for digest_id, *rest in cur.fetchall():
            found[digest_id].append(tuple(rest))
    return found


def text(digest_id: int) -> Text | None:
    with connection.cursor() as cur:
        cur.execute(TEXT_SQL, [digest_id])
        row = cur.fetchone()
    return None if row is None else Text(*row)


def seen_in(server_id: int, digest_id: int, ranges: list[tuple[datetime, datetime]]) -> list[bool]:
    found = []
    with connection.cursor() as cur:
        for start, end in ranges:
            cur.execute(SEEN_IN_SQL, [server_id, digest_id, start, end])
            found.append(cur.fetchone()[0])
    return found
