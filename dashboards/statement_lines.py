"""The Statements tab's rows: each ranked digest with its small line of executions per second over the range."""

from dataclasses import dataclass
from urllib.parse import urlencode

from dashboards import reads
from dashboards.analysis.statements import Ranked, rates, spark_bins, spark_points
from dashboards.links import id_path
from dashboards.timerange import TimeRange
from store.statements import NULL_DIGEST

SPARK_BINS = 40  # at most: fewer where the statements reads are sparser (spark_bins)


@dataclass
class Line:
    """A ranked digest with its small line of executions per second."""

    row: object
    share: float
    spark: list[str]
    time_per_trx: float | None
    execs_per_trx: float | None
    table_full: bool
    href: str  # the statement's page over the same range


def lines_of(server_id: int, tr: TimeRange, found: reads.StatementsRange, ranked: Ranked) -> list[Line]:
    ids = [row.digest_id for row in ranked.rows]
    count = spark_bins(found.reads, tr.seconds, SPARK_BINS)
    drawn = reads.statement_bins(server_id, ids, tr.start, tr.end, count)
    bins = reads.statement_read_bins(server_id, tr.start, tr.end, count)  # found.reads' bins
    trx = found.transactions
    before, after = id_path("dashboards:statement", server_id)  # one reverse() for every row
    query = urlencode(tr.params())
    return [Line(row, ranked.share(row), spark_points(rates([b[0] for b in drawn[row.digest_id]], bins)),
                 row.sums["time_ps"] / trx if trx else None, row.sums["execs"] / trx if trx else None,
                 (row.schema, row.digest) == NULL_DIGEST, f"{before}{row.digest_id}{after}?{query}")
            for row in ranked.rows]
