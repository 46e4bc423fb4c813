"""An idle server's TPS line: most polls count next to no transactions, and its bursts say when the work came.

A line at 0 with one burst of 500 transactions has a CV of several hundred % and read "Noisy"; an engineer calls it
idle with one burst, and says when and how many.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.stability import MIN_DIP_COUNT

IDLE_SHARE = 0.9  # idle: at least this share of the polls counted fewer than MIN_DIP_COUNT transactions each


@dataclass(frozen=True)
class Burst:
    start: datetime  # where its first poll's interval began (the poll before it)
    end: datetime  # its last poll
    transactions: float  # counted by its polls: each poll's TPS x its interval


def counted(ts: Sequence[datetime], values: Sequence[float], interval: float) -> list[float]:
    """Each poll's transactions: its rate times the seconds since the poll before (the first: `interval`)."""
    gaps = [interval] + [(b - a).total_seconds() for a, b in zip(ts, ts[1:], strict=False)]
    return [v * gap for v, gap in zip(values, gaps, strict=True)]


def idle_bursts(ts: Sequence[datetime], values: Sequence[float], interval: float) -> tuple[int, list[Burst]] | None:
    """The polls that counted next to no transactions (fewer than MIN_DIP_COUNT, the stability page's "next to no
    transactions") and the runs of the others, the bursts; None where fewer than IDLE_SHARE of the polls are idle."""
    trx = counted(ts, values, interval)
    idle = [n < MIN_DIP_COUNT for n in trx]
    if not ts or sum(idle) < IDLE_SHARE * len(ts):
        return None
    found: list[Burst] = []
    for i, quiet in enumerate(idle):
        if quiet:
            continue
        if i and not idle[i - 1] and found:
            last = found[-1]
            found[-1] = Burst(last.start, ts[i], last.transactions + trx[i])
        else:
            found.append(Burst(ts[i - 1] if i else ts[i] - timedelta(seconds=interval), ts[i], trx[i]))
    return sum(idle), found
