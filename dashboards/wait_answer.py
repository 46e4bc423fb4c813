"""The waits page's answer to "which statements made the top wait": the interval's digests by that wait's column."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.wait_statements import COLUMNS, Basis, basis
from dashboards.reads import STMT_EXECUTE, interval_sums
from dashboards.timerange import TimeRange
from store import statement_reads
from store.monitoring_reads import is_monitoring_read
from store.points import from_micros
from store.statements import REST

SHOWN = 3  # statements named under the table; the link ranks them all


@dataclass(frozen=True)
class Statement:
    """A digest the answer names: its id and its text (DIGEST_TEXT)."""

    digest_id: int
    text: str


@dataclass(frozen=True)
class Answer:
    event: str
    basis: Basis
    label: str  # the ranking's name on the Statements tab
    href: str  # the Statements tab over the interval, ranked so
    reads: int  # digest reads that ended in the interval
    top: list[tuple[Statement, int, float]]  # digest, its figure, its share of every statement's
    covered: tuple[datetime, datetime] | None  # from where the first read began to the last's end
    prepared_unseen: int | None = None  # MariaDB's server-side prepared executions over that span: not digested

    @property
    def timed(self) -> bool:
        return COLUMNS[self.basis.order].endswith("_ps")


def top_wait_statements(server_id: int, flavor: str, tr: TimeRange, event: str, label: str, href: str) -> Answer:
    """The interval's statements with the most of the wait's column (none where it is 0): the monitoring reads left
    out, as the Statements tab leaves them; a share is of every digest's sum, theirs and the rest row's included.
    On MariaDB, the prepared executions the digest table left out, as the Statements tab counts them."""
    found = basis(event)
    ends, ms = statement_reads.read_times(server_id, tr.start, tr.end)  # count and span: no datetime a read
    column = COLUMNS[found.order]
    sums = statement_reads.column_sums(server_id, tr.start, tr.end, column) if len(ms) else {}
    total = sum(sums.values())
    texts = statement_reads.texts_of(list(sums)) if sums else {}
    top = [(Statement(digest_id, texts[digest_id][2] if digest_id in texts else ""), value, value / total)
           for digest_id, value in ranked(sums, texts)[:SHOWN] if value]
    covered = (from_micros(ends[0]) - timedelta(milliseconds=ms[0]), from_micros(ends[-1])) if len(ms) else None
    unseen = prepared_unseen(server_id, flavor, covered or (tr.start, tr.end))
    return Answer(event, found, label, href, len(ms), top, covered, unseen)


def prepared_unseen(server_id: int, flavor: str, span: tuple[datetime, datetime]) -> int | None:
    """Com_stmt_execute over the span on MariaDB (dashboards.prepared_note); None where none ran or on MySQL."""
    if flavor != "mariadb":
        return None
    count = interval_sums(server_id, [STMT_EXECUTE], *span).get(STMT_EXECUTE, (None, 0.0))[0]
    return int(count) if count else None


def ranked(sums: dict[int, int], texts: dict[int, tuple[str, str, str, str]]) -> list[tuple[int, int]]:
    """(digest id, its sum), biggest first (the lower id on a tie), without the rest row and the monitoring reads:
    the Statements tab's order by the column (dashboards.analysis.statements.rank)."""
    def kept(digest_id: int) -> bool:
        schema, digest, text, _sample = texts.get(digest_id, ("", "", "", ""))
        return (schema, digest) != REST and not is_monitoring_read(schema, text)

    return sorted(((i, v) for i, v in sums.items() if kept(i)), key=lambda iv: (-iv[1], iv[0]))
