"""Where a range's TPS began to be counted as its last polls count it, when the counter changed inside the range.

A poll's TPS is the delta of the best counter it read (collectors.transactions.PREFERENCE), each stored under its
own name too; tps_explicit at every poll. Turning InnoDB's trx counters on (as the pages advise) moves TPS from
explicit transactions to every InnoDB one: a step up that is the counter's, not the server's. The verdict judges
the polls from that change on, as one line of one meaning.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from collectors import transactions
from dashboards import reads
from dashboards.server_texts import range_bases
from dashboards.timerange import TimeRange


@dataclass(frozen=True)
class CountedFrom:
    at: datetime  # the first point counted by `basis` after the points counted otherwise
    basis: str  # collectors.transactions: the counter the range's last points used

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
    return CountedFrom(times[k], last) if k > 0 else None
