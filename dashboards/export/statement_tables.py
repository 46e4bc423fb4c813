"""The rows of the statement exports: a range's ranking, two runs compared, one statement's reads."""

from collections.abc import Iterator

from dashboards.analysis.statements import Ranked, StatementDiff
from dashboards.export.tables import to_second
from store.statement_reads import DigestTotals

PS_PER_S, PS_PER_MS = 10**12, 10**9

TOP_HEADER = ["rank", "schema", "digest", "statement", "executions", "total time (s)", "share of time (%)",
              "avg latency (ms)", "max latency since first seen (ms)", "p95 since first seen (ms)",
              "p99 since first seen (ms)", "lock time (s)", "rows sent", "rows examined", "rows affected",
              "rows examined per row sent", "errors", "warnings", "full scans (no index used)",
              "no good index used", "tmp disk tables", "time per transaction (ms)", "executions per transaction",
              "reads it moved in", "total time (ps)", "digest id", "monitoring read", "share of all statement time (%)"]
DIFF_HEADER = ["schema", "digest", "statement", "A time per transaction (ms)", "B time per transaction (ms)",
               "change B-A per transaction (ms)", "ratio B/A per transaction", "A executions per transaction",
               "B executions per transaction", "A avg latency (ms)", "B avg latency (ms)", "A total time (s)",
               "B total time (s)", "A executions", "B executions", "A transactions", "B transactions", "digest id",
               "monitoring read"]
LINE_HEADER = ["read at (UTC)", "interval (s)", "executions", "executions per second (/s)", "total time (s)",
               "avg latency (ms)", "rows examined", "rows sent", "errors", "total time (ps)"]


def _ms(ps: float | None) -> float | None:
    return None if ps is None else ps / PS_PER_MS


def _per(value: float, by) -> float | None:
    return value / by if by else None


def top_rows(ranked: Ranked, transactions) -> Iterator[list]:
    """The ranked rows, the rest row, then the monitoring reads the ranking left out (no rank, no share of
    the time ranked: their share of all statement time is in the last column, as every row's)."""
    yield TOP_HEADER
    rows = list(ranked.rows) + ([ranked.rest] if ranked.rest else [])
    for rank, row in enumerate(rows, start=1):
        yield [None if row.is_rest else rank, *identity(row), *figures(row, ranked.share(row), transactions),
               *label(row, ranked)]
    apart = ranked.monitoring.rows if ranked.monitoring and not ranked.monitoring.ranked else []
    for row in apart:
        yield [None, *identity(row), *figures(row, None, transactions), *label(row, ranked)]


def label(row: DigestTotals, ranked: Ranked) -> list:
    return ["yes" if row.monitoring else "", ranked.share_of_all(row) * 100]


def identity(row: DigestTotals) -> list:
    text = "(all other statements, summed)" if row.is_rest else row.text
    return [row.schema, row.digest, text]


def figures(row: DigestTotals, share: float | None, transactions) -> list:
    s = row.sums
    return [s["execs"], s["time_ps"] / PS_PER_S, None if share is None else share * 100, _ms(row.avg_ps),
            _ms(row.max_ps), _ms(row.p95_ps), _ms(row.p99_ps), s["lock_ps"] / PS_PER_S, s["rows_sent"],
            s["rows_examined"], s["rows_affected"],
            row.examined_per_sent, s["errors"], s["warnings"], s["no_index"], s["no_good_index"],
            s["tmp_disk_tables"], _ms(_per(s["time_ps"], transactions)), _per(s["execs"], transactions),
            row.intervals, s["time_ps"], row.digest_id]


def diff_rows(diffs: list[StatementDiff]) -> Iterator[list]:
    yield DIFF_HEADER
    for d in diffs:
        a, b = d.a, d.b
        yield [*identity(d.row), _ms(d.a_per_trx), _ms(d.b_per_trx), _ms(d.change), d.ratio,
               d.execs_per_trx(a, d.a_transactions), d.execs_per_trx(b, d.b_transactions),
               _ms(a.avg_ps if a else None), _ms(b.avg_ps if b else None),
               (a.sums["time_ps"] if a else 0) / PS_PER_S, (b.sums["time_ps"] if b else 0) / PS_PER_S,
               a.sums["execs"] if a else 0, b.sums["execs"] if b else 0, d.a_transactions, d.b_transactions,
               d.digest_id, "yes" if d.row.monitoring else ""]


def line_rows(line: list[tuple]) -> Iterator[list]:
    """One row per read of the digest: the stored deltas as they are."""
    yield LINE_HEADER
    for ts, interval_ms, execs, time_ps, examined, sent, errors in line:
        seconds = interval_ms / 1000
        yield [to_second(ts), seconds, execs, execs / seconds if seconds else None, time_ps / PS_PER_S,
               _ms(time_ps / execs if execs else None), examined, sent, errors, time_ps]
