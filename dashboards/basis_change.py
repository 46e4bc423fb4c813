"""Where a range's TPS began to be counted as its last polls count it, when the counter changed inside the range.

A poll's TPS is the delta of the best counter it read (collectors.transactions.PREFERENCE), each stored under its
own name too; tps_explicit at every poll. Turning InnoDB's trx counters on (as the pages advise) moves TPS from
explicit transactions to every InnoDB one: a step up that is the counter's, not the server's. The verdict judges
the polls from that change on, as one line of one meaning.
"""

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from collectors import transactions
from dashboards import reads
from dashboards.counter_holes import BOOT_SLACK, UPTIME
from dashboards.server_texts import COUNTERS, range_bases
from dashboards.timerange import TimeRange
from store import query


@dataclass(frozen=True)
class CountedFrom:
    at: datetime  # the first point counted by `basis` after the points counted otherwise
    basis: str  # collectors.transactions: the counter the range's last points used
    before: str = ""  # the counter of the points just before `at`

    @property
    def what(self) -> str:
        return transactions.SHORT[self.basis]


def counted_from(server_id: int, tr: TimeRange, points: int, sums: dict) -> CountedFrom | None:
    """The change nearest the range's end (sums: reads.interval_sums of BASIS_SERIES over it), at the chart's
    resolution; None where one counter counted the whole range."""
    bases = range_bases(sums)
    if len(bases) < 2:
        return None
    found = reads.series_map(server_id, bases, tr, points)
    return last_change(((b, zip(s.ts, s.values, strict=True)) for b, s in found.items()))


def last_change(lines: Iterable[tuple[str, Iterable[tuple[datetime, float | None]]]]) -> CountedFrom | None:
    """From each counter's points (basis, (time, value)): each time's basis is the best counter with a value
    there; the change is the first time of the last run of one basis, None where that run is all of them."""
    at: dict[datetime, str] = {}
    rank = {b: i for i, b in enumerate(transactions.PREFERENCE)}
    for basis, points in lines:
        for t, v in points:
            if v is not None and (t not in at or rank[basis] < rank[at[t]]):
                at[t] = basis
    times = sorted(at)
    return change_in(times, [at[t] for t in times])


def change_in(times: Sequence[datetime], bases: Sequence[str]) -> CountedFrom | None:
    if not bases:
        return None
    last = bases[-1]
    k = len(bases) - 1
    while k > 0 and bases[k - 1] == last:
        k -= 1
    return CountedFrom(times[k], last, bases[k - 1]) if k > 0 else None


TURNED = "the transaction instrument or InnoDB's trx counters were turned on or off meanwhile"
GRANTS = {transactions.TRX_SUMMARY: transactions.TRX_SUMMARY_GRANT,
          transactions.INNODB_TRX: transactions.INNODB_TRX_GRANT}


def change_cause(server_id: int, tr: TimeRange, change: CountedFrom | None, refused: Collection[str]) -> str:
    """Why the range's TPS counter changed, as the data shows it: the read of the better counter refused (refused:
    the counters the latest poll was refused, transactions.refused_of), a restart (Uptime began again) with
    another configuration, else a counter turned on or off at runtime."""
    if change is None:
        return TURNED
    if change.before in refused and change.before in GRANTS:
        return (f"the monitoring user's read of {COUNTERS[change.before]} was refused, as the latest poll says "
                f"(a grant revoked): {GRANTS[change.before]}")
    boot = restart_near(server_id, tr, change.at)
    if boot is not None:
        return (f"the server restarted at {boot.astimezone(UTC):%H:%M:%S} UTC (Uptime began again) with another "
                f"configuration: {transactions.SHORT[change.before]} counted before, "
                f"{transactions.SHORT[change.basis]} after")
    return TURNED


def restart_near(server_id: int, tr: TimeRange, at: datetime) -> datetime | None:
    """The boot time of the range's restart nearest `at` (a poll whose boot time, poll time less Uptime, moved
    on from the poll before's); None where the range's Uptime readings hold none."""
    found = query.within(server_id, [UPTIME], tr.start, tr.end)
    points = [(t, t - timedelta(seconds=v)) for s in found for t, v in zip(s.ts, s.values, strict=True)
              if v is not None]
    boots = [b1 for (t0, b0), (_t1, b1) in zip(points, points[1:], strict=False)
             if b1 - b0 > BOOT_SLACK and b1 > t0 - BOOT_SLACK]
    return min(boots, key=lambda b: abs(b - at), default=None)
