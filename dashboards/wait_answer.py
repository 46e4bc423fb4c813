"""The waits page's answer to "which statements made the top wait": the interval's digests by that wait's column."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.statements import rank
from dashboards.analysis.wait_statements import COLUMNS, Basis, basis
from dashboards.timerange import TimeRange
from store import statement_reads
from store.statement_reads import DigestTotals

SHOWN = 3  # statements named under the table; the link ranks them all


@dataclass(frozen=True)
class Answer:
    event: str
    basis: Basis
    label: str  # the ranking's name on the Statements tab
    href: str  # the Statements tab over the interval, ranked so
    reads: int  # digest reads that ended in the interval
    top: list[tuple[DigestTotals, int, float]]  # digest, its figure, its share of every statement's
    covered: tuple[datetime, datetime] | None  # from where the first read began to the last's end

    @property
    def timed(self) -> bool:
        return COLUMNS[self.basis.order].endswith("_ps")


def top_wait_statements(server_id: int, tr: TimeRange, event: str, label: str, href: str) -> Answer:
    """The interval's statements with the most of the wait's column (none where it is 0): the monitoring reads left
    out, as the Statements tab leaves them; a share is of every digest's sum, theirs and the rest row's included."""
    found = basis(event)
    listed = statement_reads.reads(server_id, tr.start, tr.end)
    rows = statement_reads.totals(server_id, tr.start, tr.end) if listed else []
    column = COLUMNS[found.order]
    total = sum(r.sums[column] for r in rows)
    top = [(r, r.sums[column], r.sums[column] / total) for r in rank(rows, found.order, SHOWN).rows if r.sums[column]]
    covered = (listed[0][0] - timedelta(milliseconds=listed[0][1]), listed[-1][0]) if listed else None
    return Answer(event, found, label, href, len(listed), top, covered)
