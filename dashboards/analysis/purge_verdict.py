"""What holds the history list now, as an engineer would say it: a read view, purge's own pace, or draining.

Pure: from the history length's current segment (purge_growth.current_trend), the holder of the oldest
transaction at the last poll, and the purge and DML rates over the segment. docs/dashboards.md
("Purge verdict") defines each.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.purge_growth import Trend

# A history list this short is no backlog, whatever the slope: the demo's wanders 0-90 while purge keeps up.
HANDFUL = 100


@dataclass(frozen=True)
class Holder:
    thread: int
    user: str
    host: str
    since: datetime  # the transaction's start


@dataclass(frozen=True)
class PurgeVerdict:
    kind: str  # "held", "purge-bound", "nearly-empty", "draining", "flat", or "" (no trend)
    holder: Holder | None = None
    purged_per_s: float | None = None  # undo records purged a second over the segment (None: counters off)
    dml_per_s: float | None = None  # rows updated + deleted a second over the segment: what purge will have to do
    to_threshold: timedelta | None = None  # draining from above the threshold: when it falls below it
    to_empty: timedelta | None = None  # draining: when it reaches 0 at this pace


def purge_verdict(current: float | None, trend: Trend, threshold: float, holder: Holder | None,
                  purged_per_s: float | None = None, dml_per_s: float | None = None) -> PurgeVerdict:
    """Growing with a transaction open: held by it; growing without one: purge-bound; falling: draining;
    but a HANDFUL of undo logs or fewer, falling or growing with no holder, is nearly empty: no backlog
    (the slope of a load that just ended, or of a drain's last polls to 0, is no pace to act on).

    The drain is the segment's slope carried on: (length - threshold) / pace and length / pace.
    """
    if current is None or trend.per_second is None or not trend.direction:
        return PurgeVerdict("")
    if current <= HANDFUL and (trend.direction == "draining" or trend.direction == "growing" and holder is None):
        return PurgeVerdict("nearly-empty")
    if trend.direction == "draining":
        pace = -trend.per_second
        below = timedelta(seconds=(current - threshold) / pace) if current >= threshold else None
        return PurgeVerdict("draining", to_threshold=below, to_empty=timedelta(seconds=current / pace))
    if trend.direction == "growing":
        if holder is not None:
            return PurgeVerdict("held", holder=holder)
        return PurgeVerdict("purge-bound", purged_per_s=purged_per_s, dml_per_s=dml_per_s)
    return PurgeVerdict("flat", holder=holder)
