"""Statement digests over a range: rankings, lines binned over time, and two ranges compared per transaction.

Pure: rows in (store.statement_reads.DigestTotals and line tuples), figures out. Every
figure is one an engineer gets from the stored rows by hand: sums of the interval deltas,
and ratios of those sums (an average latency is the range's time over its executions).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

import numpy as np

from store.points import micros
from store.statement_reads import DigestTotals

# ?order= -> (label, key; larger first). Averages and ratios of digests with no execution rank last.
ORDERS: dict[str, tuple[str, Callable[[DigestTotals], float]]] = {
    "time": ("total time", lambda r: r.sums["time_ps"]),
    "execs": ("executions", lambda r: r.sums["execs"]),
    "avg": ("average latency", lambda r: r.avg_ps or 0),
    "max": ("max latency", lambda r: r.max_ps),
    "examined": ("rows examined per row sent", lambda r: r.examined_per_sent or 0),
    "errors": ("errors", lambda r: r.sums["errors"]),
    "scans": ("full scans", lambda r: r.full_scans),
    # The columns a wait class accumulates in (dashboards.analysis.wait_statements): the waits page links them.
    "lock": ("lock time", lambda r: r.sums["lock_ps"]),
    "rows_examined": ("rows examined", lambda r: r.sums["rows_examined"]),
    "rows_affected": ("rows affected", lambda r: r.sums["rows_affected"]),
    "tmp_disk": ("tmp disk tables", lambda r: r.sums["tmp_disk_tables"]),
}
DEFAULT_ORDER = "time"
BIN_READS = 1.5  # a small line's bin is at least this many of the reads' interval wide (spark_bins)


MONITORING_PARAM = "monitoring"  # ?monitoring=1 ranks the monitoring reads with the other statements


@dataclass(frozen=True)
class Monitoring:
    """The range's monitoring reads (store.monitoring_reads): their digests and sums, ranked or left out."""

    rows: list[DigestTotals]  # by the ranking's key, largest first
    ranked: bool  # ranked with the other statements (?monitoring=1); else left out of the rows and shares
    of_all: float  # their time's share of every statement's time (0..1)

    @property
    def execs(self) -> int:
        return sum(r.sums["execs"] for r in self.rows)

    @property
    def time_ps(self) -> int:
        return sum(r.sums["time_ps"] for r in self.rows)


@dataclass(frozen=True)
class Ranked:
    """The digests ranked, the rest row (the digests no read kept) and the range's grand totals."""

    rows: list[DigestTotals]
    rest: DigestTotals | None
    grand: dict[str, int]  # every stored row's sums: the table's change over the range
    monitoring: Monitoring | None = None  # None: the range has no monitoring read

    @property
    def base_ps(self) -> int:
        """What a share is of: every statement's time, less the monitoring reads' where they are left out."""
        apart = self.monitoring.time_ps if self.monitoring and not self.monitoring.ranked else 0
        return self.grand.get("time_ps", 0) - apart

    def share(self, row: DigestTotals) -> float:
        return row.sums["time_ps"] / self.base_ps if self.base_ps else 0.0

    def share_of_all(self, row: DigestTotals) -> float:
        return row.sums["time_ps"] / self.grand["time_ps"] if self.grand.get("time_ps") else 0.0


def rank(rows: list[DigestTotals], order: str = DEFAULT_ORDER, limit: int | None = None,
         monitoring: bool = False) -> Ranked:
    """The digests by the order's key; the monitoring reads left out of them (and of the shares) unless
    monitoring, their sums kept apart either way."""
    key = ORDERS.get(order, ORDERS[DEFAULT_ORDER])[1]
    digests = sorted((r for r in rows if not r.is_rest), key=lambda r: (-key(r), r.digest_id))
    rest = next((r for r in rows if r.is_rest), None)
    grand = {name: sum(r.sums[name] for r in rows) for name in (rows[0].sums if rows else {})}
    own = [r for r in digests if r.monitoring]
    apart = Monitoring(own, monitoring, sum(r.sums["time_ps"] for r in own) / grand["time_ps"]
                       if grand.get("time_ps") else 0.0) if own else None
    if not monitoring:
        digests = [r for r in digests if not r.monitoring]
    return Ranked(digests[:limit] if limit else digests, rest, grand, apart)


@dataclass(frozen=True)
class TopStatement:
    """A digest of a run's (or a range's) top: its share of the statement time ranked and its cost per transaction."""

    row: DigestTotals
    share: float
    time_per_trx: float | None  # picoseconds
    execs_per_trx: float | None


def top_statements(rows: list[DigestTotals], transactions, limit: int, monitoring: bool = False
                   ) -> list[TopStatement]:
    """The digests with the most time (the rest row left out, and the monitoring reads unless monitoring),
    biggest first."""
    ranked = rank(rows, DEFAULT_ORDER, limit, monitoring)
    return [TopStatement(r, ranked.share(r), r.sums["time_ps"] / transactions if transactions else None,
                         r.sums["execs"] / transactions if transactions else None) for r in ranked.rows]


@dataclass(frozen=True)
class Bins:
    """A line over the range in equal bins: per bin the seconds the reads in it cover (0: no read, a gap)."""

    starts: list[datetime]
    seconds: list[float]


def bins_of(reads: list[tuple[datetime, int]], start: datetime, end: datetime, count: int) -> Bins:
    """Equal bins over (start, end], each with the seconds covered by the reads that ended in it."""
    width = (end - start) / count
    seconds = [0.0] * count
    for ts, interval_ms in reads:
        seconds[bin_index(ts, start, width, count)] += interval_ms / 1000
    return Bins([start + width * i for i in range(count)], seconds)


def bins_at(ends_us: np.ndarray, intervals_ms: Sequence[int], start: datetime, end: datetime, count: int) -> Bins:
    """bins_of() of reads given as their ends' epoch microseconds (store.statement_reads.read_times), at once: a
    week's 10,080 reads cost no datetime each. Each read's bin is bin_index()'s float quotient (two integers
    below 2**53), truncated; each bin's seconds are added in read order, as bins_of() adds them."""
    width = (end - start) / count
    quotient = (ends_us - micros(start)).astype(np.float64) / float(width // timedelta(microseconds=1))
    index = np.clip(np.trunc(quotient), 0, count - 1).astype(np.int64)
    seconds = np.bincount(index, np.asarray(intervals_ms, np.float64) / 1000, minlength=count)
    return Bins([start + width * i for i in range(count)], seconds.tolist())


def bin_index(ts: datetime, start: datetime, width, count: int) -> int:
    return min(count - 1, max(0, int((ts - start) / width)))


def per_second(line: list[tuple], bins: Bins, start: datetime, end: datetime, column: int) -> list[float | None]:
    """A column of the line (2: executions) per second in each bin; None where no read ended (a gap)."""
    count = len(bins.seconds)
    width = (end - start) / count
    sums = [0] * count
    for row in line:
        sums[bin_index(row[0], start, width, count)] += row[column]
    return [s / sec if sec else None for s, sec in zip(sums, bins.seconds, strict=True)]


def average_latency(line: list[tuple], bins: Bins, start: datetime, end: datetime) -> list[float | None]:
    """Time over executions of the reads in each bin, picoseconds; None where it ran not at all or no read ended."""
    count = len(bins.seconds)
    width = (end - start) / count
    execs, times = [0] * count, [0] * count
    for row in line:
        i = bin_index(row[0], start, width, count)
        execs[i] += row[2]
        times[i] += row[3]
    return [t / e if e and sec else None for t, e, sec in zip(times, execs, bins.seconds, strict=True)]


def rates(sums: list[int], bins: Bins) -> list[float | None]:
    """per_second() from each bin's exact sum (store.statement_reads.binned, over the same bins)."""
    return [s / sec if sec else None for s, sec in zip(sums, bins.seconds, strict=True)]


def latencies(execs: list[int], times: list[int], bins: Bins) -> list[float | None]:
    """average_latency() from each bin's exact sums of executions and time (picoseconds)."""
    return [t / e if e and sec else None for t, e, sec in zip(times, execs, bins.seconds, strict=True)]


def spark_bins(reads: list[tuple[datetime, int]], seconds: float, most: int) -> int:
    """How many equal bins a range's small line takes: at most `most`, each at least BIN_READS of the reads' usual
    interval wide, so that a source reading without a gap leaves no bin empty (40 bins of 22 s over 15 minutes
    of 60 s reads held a read in one bin of three: each a lone point between gaps)."""
    interval = median(ms for _, ms in reads) / 1000 if reads else 0.0
    if interval <= 0:
        return most
    return max(1, min(most, int(seconds / (BIN_READS * interval))))


def spark_points(values: list[float | None], width: int = 120, height: int = 24) -> list[str]:
    """SVG polyline point lists of a small line, one per run of values without a gap; scaled to its own max.
    A lone value between gaps is a short dash: a polyline of one point draws nothing."""
    top = max((v for v in values if v is not None), default=0) or 1
    step = width / max(1, len(values) - 1)
    runs: list[list[str]] = []
    current: list[str] = []
    for i, value in enumerate(values):
        if value is None:
            runs, current = (runs + [current] if current else runs), []
            continue
        current.append(f"{i * step:.1f},{height - value / top * (height - 2) - 1:.1f}")
    if current:
        runs.append(current)
    return [" ".join(run if len(run) > 1 else _dash(run[0])) for run in runs]


def _dash(point: str) -> list[str]:
    x, y = (float(v) for v in point.split(","))
    return [f"{x - 1.5:.1f},{y:.1f}", f"{x + 1.5:.1f},{y:.1f}"]


@dataclass(frozen=True)
class StatementDiff:
    """One digest in two ranges (two runs): its time per transaction in each."""

    digest_id: int
    a: DigestTotals | None
    b: DigestTotals | None
    a_transactions: int | float | None
    b_transactions: int | float | None

    @property
    def row(self) -> DigestTotals:
        row = self.a or self.b
        if row is None:  # changed_most builds a diff only for a digest in either range
            raise ValueError(f"digest {self.digest_id} is in neither range")
        return row

    def per_trx(self, side: DigestTotals | None, transactions) -> float | None:
        return (side.sums["time_ps"] if side else 0) / transactions if transactions else None

    @property
    def a_per_trx(self) -> float | None:
        return self.per_trx(self.a, self.a_transactions)

    @property
    def b_per_trx(self) -> float | None:
        return self.per_trx(self.b, self.b_transactions)

    @property
    def change(self) -> float | None:
        """B - A, picoseconds per transaction."""
        a, b = self.a_per_trx, self.b_per_trx
        return None if a is None or b is None else b - a

    @property
    def ratio(self) -> float | None:
        a, b = self.a_per_trx, self.b_per_trx
        return None if not a or b is None else b / a

    def execs_per_trx(self, side: DigestTotals | None, transactions) -> float | None:
        return (side.sums["execs"] if side else 0) / transactions if transactions else None

    @property
    def a_execs_per_trx(self) -> float | None:
        return self.execs_per_trx(self.a, self.a_transactions)

    @property
    def b_execs_per_trx(self) -> float | None:
        return self.execs_per_trx(self.b, self.b_transactions)


def changed_most(a: list[DigestTotals], b: list[DigestTotals], a_trx, b_trx, limit: int | None = None,
                 monitoring: bool = False) -> list[StatementDiff]:
    """Digests of either range by how much their time per transaction changed (either way), largest first;
    the monitoring reads left out unless monitoring (a poll's fixed cost per transaction moves with TPS)."""
    by_a = {r.digest_id: r for r in a if monitoring or not r.monitoring}
    by_b = {r.digest_id: r for r in b if monitoring or not r.monitoring}
    diffs = [StatementDiff(i, by_a.get(i), by_b.get(i), a_trx, b_trx) for i in set(by_a) | set(by_b)]
    diffs.sort(key=lambda d: (-abs(d.change or 0), d.digest_id))
    return diffs[:limit] if limit else diffs
