"""A statement digest's row and its per-interval delta; the top digests of an interval plus the rest.

Plain data and arithmetic, no I/O: collectors.sources.statements reads the rows,
collectors.statement_record hands the kept ones to store.statements.
"""

from dataclasses import dataclass, field

from django.conf import settings

from store.statements import COUNTERS, NULL_DIGEST, REST

TIME = COUNTERS.index("time_ps")
TOP_N = 200  # digests kept a read where the settings do not say (monitor/settings.py's default too)
KEY_SEP = "\x1f"  # between schema and digest in a snapshot key (neither can hold it)


@dataclass
class DigestRow:
    """One digest's totals as read, or (from delta_since) its delta over an interval."""

    schema: str  # '' for statements run without a default database, and for the NULL-digest row
    digest: str  # '' for the NULL-digest row: statements that found the table full
    counts: tuple[int, ...]  # in the order of COUNTERS
    max_ps: int  # MAX_TIMER_WAIT: the highest since FIRST_SEEN (a level, not this interval's)
    first_seen: str = ""
    last_seen: str = ""
    p95_ps: int | None = None  # MySQL 8.0.3+, since FIRST_SEEN
    p99_ps: int | None = None

    @staticmethod
    def make_key(schema: str, digest: str) -> str:
        return f"{schema}{KEY_SEP}{digest}"

    @property
    def key(self) -> str:
        return self.make_key(self.schema, self.digest)

    @property
    def label(self) -> str:
        return f"{self.schema or '-'}.{self.digest or '(NULL digest)'}"

    @property
    def time_ps(self) -> int:
        return self.counts[TIME]

    def delta_since(self, old: list | None, watermark: str | None) -> "DigestRow | None":
        """This interval's part of the totals, or None where it cannot be known (only a baseline).

        old is the snapshot entry [first_seen, last_seen, text stored, *counts]; watermark the
        previous read's newest LAST_SEEN. A FIRST_SEEN at or after it means the row was
        created since the previous read: all its totals are this interval's.
        """
        if watermark is None:
            return None
        if old is not None and old[0] == self.first_seen:
            before = old[3:]
            if len(before) == len(self.counts) and all(n >= b for n, b in zip(self.counts, before, strict=True)):
                return self.with_counts(tuple(n - b for n, b in zip(self.counts, before, strict=True)))
        if self.first_seen >= watermark:
            return self.with_counts(self.counts)
        return None

    def with_counts(self, counts: tuple[int, ...]) -> "DigestRow":
        return DigestRow(self.schema, self.digest, counts, self.max_ps, self.first_seen, self.last_seen,
                         self.p95_ps, self.p99_ps)


@dataclass
class Interval:
    """What one read stores: the kept deltas (the rest summed last), resets, and the new digests' texts."""

    rows: list[DigestRow]
    resets: list[str]
    texts: dict[str, tuple[str, str]]  # key -> (digest text, sample text)
    seconds: float | None = None  # set once the read time is known; None on the first read
    extra: dict = field(default_factory=dict)


def top_n() -> int:
    """STATEMENTS_TOP_N; its default where no settings are read (`python -m collectors.standalone`)."""
    return int(getattr(settings, "STATEMENTS_TOP_N", TOP_N)) if settings.configured else TOP_N


def top_rows(rows: list[DigestRow], keep: int | None = None) -> list[DigestRow]:
    """The keep digests with the most time, then one row summing all the others (if any)."""
    keep = top_n() if keep is None else keep
    ranked = sorted(rows, key=lambda r: (-r.time_ps, r.key))
    kept, rest = ranked[:keep], ranked[keep:]
    # The NULL-digest row is the table saying it was full (the Statements tab names it with what it counted):
    # kept whatever its time, never summed away into the rest.
    kept += [r for r in rest if (r.schema, r.digest) == NULL_DIGEST]
    rest = [r for r in rest if (r.schema, r.digest) != NULL_DIGEST]
    if rest:
        kept.append(summed(rest))
    return kept


def summed(rows: list[DigestRow]) -> DigestRow:
    counts = tuple(sum(r.counts[i] for r in rows) for i in range(len(COUNTERS)))
    return DigestRow(REST[0], REST[1], counts, max(r.max_ps for r in rows))
