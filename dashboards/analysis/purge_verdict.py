"""What holds the history list now, as an engineer would say it: a read view, purge's own pace, or draining.

Pure: from the history length's current segment (purge_growth.current_trend), the holder of the oldest
transaction at the last poll, and the purge and DML rates over the segment. docs/dashboards.md
("Purge verdict") defines each.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.purge_growth import HANDFUL, Trend
from dashboards.analysis.segment import OWN_POLLS, TURN_SIGMAS

# Purged and DML rates this close are one pace: 1.9 % and 2.3 % apart over minutes the history stayed bounded
# (purge counters read once a minute, DML every poll; audit of 2026-11-26).
KEEP_UP = 0.05


@dataclass(frozen=True)
class Holder:
    thread: int
    user: str
    host: str
    since: datetime  # the transaction's start


@dataclass(frozen=True)
class PurgeVerdict:
    # "held", "released" (gone by the last poll, the growth its read view's), "purge-bound", "keeping-up", "ahead",
    # "early", "unread", "nearly-empty", "draining", "flat",
    # "turned" (a turn too recent for a pace), "drained-on" (one that fell, carrying on a drain), or ""
    kind: str
    holder: Holder | None = None
    purged_per_s: float | None = None  # undo records purged a second over the segment (None: counters off)
    dml_per_s: float | None = None  # rows updated + deleted a second over the segment: what purge will have to do
    to_threshold: timedelta | None = None  # draining from above the threshold: when it falls below it
    to_empty: timedelta | None = None  # draining: when it reaches 0 at this pace
    counters_off: bool = False  # the purge counters are off now (the page's list of counters that are off)
    rates_from: datetime | None = None  # the seconds (rates_from, rates_to] both rates cover (reads.purge_rates)
    rates_to: datetime | None = None
    unread: str = ""  # "unread": why the oldest transaction could not be read (a missing privilege)
    gone_by: datetime | None = None  # "released" (and "flat" with `released`): the history poll that found it gone
    polls_after: int = 0  # "released": the history polls read after gone_by (0: it is the last)
    released: Holder | None = None  # "flat": the holder found gone (by gone_by) as the history stopped growing


def purge_verdict(current: float | None, trend: Trend, threshold: float, holder: Holder | None,
                  purged_per_s: float | None = None, dml_per_s: float | None = None,
                  counters_off: bool = False, holders_unread: str = "", released: Holder | None = None,
                  lowest: float | None = None) -> PurgeVerdict:
    """Growing, or no trend yet (a turn's first polls), with a transaction open: held by it; a turn's first polls
    with none: turned (a read view released: 30,112 to 201, said rather than no verdict), or drained-on where it
    fell from polls that were draining (Trend.drained_per_second: the drain sped up, nothing released); growing
    without one: purge-bound; falling: draining;
    but within reach of 0 (nearly_empty), falling or growing with no holder, it is nearly empty: no backlog
    (the slope of a load that just ended, or of a drain's last polls to 0, is no pace to act on).

    Purge-bound needs the growth over OWN_POLLS polls at least (else "early") and, where the counters
    were read, purge falling behind DML by more than KEEP_UP (else "keeping-up", or "ahead" above it).
    The drain is the segment's slope carried on: (length - threshold) / pace and length / pace.
    Growing with no holder now but `released`, the holder of one of the newest polls, open over most of the segment
    (reads.released_at): released (the growth was its read view's; purge has had too few polls to turn it down, so
    its rate says nothing of its pace).
    Growing with no holder where the oldest transaction could not be read (`holders_unread`, why: INNODB_TRX needs
    PROCESS) is "unread": a read view held and purge falling behind look the same from the history length alone.
    A holder is one only where the history grew while it was open (grew_while_open: `lowest`, the lowest history
    poll since it opened): one opened on a backlog that purge kept draining holds none of it.
    """
    if holder is not None and not grew_while_open(current, lowest, trend):
        holder = None
    if current is not None and holder is not None and trend.direction in ("", "growing"):
        return PurgeVerdict("held", holder=holder)  # the holder is known apart from the trend: no turn loses it
    if current is not None and trend.per_second is None and trend.before is not None and trend.since is not None:
        if trend.drained_per_second is not None:
            return PurgeVerdict("drained-on")  # the fall carries a drain on: no read view released, no stall over
        return PurgeVerdict("turned")  # from before to current: the turn is the answer until its pace is known
    if current is None or trend.per_second is None or not trend.direction:
        return PurgeVerdict("")
    if current <= nearly_empty(trend) and (trend.direction == "draining"
                                           or trend.direction == "growing" and holder is None):
        return PurgeVerdict("nearly-empty")
    if trend.direction == "draining":
        pace = -trend.per_second
        below = timedelta(seconds=(current - threshold) / pace) if current >= threshold else None
        return PurgeVerdict("draining", to_threshold=below, to_empty=timedelta(seconds=current / pace))
    if trend.direction == "growing" and holder is None and released is not None:
        return PurgeVerdict("released", holder=released)
    if trend.direction == "growing" and holder is None and holders_unread:
        return PurgeVerdict("unread", unread=holders_unread)
    if trend.direction == "growing":
        return PurgeVerdict(unheld_growth(trend, purged_per_s, dml_per_s), purged_per_s=purged_per_s,
                            dml_per_s=dml_per_s, counters_off=counters_off)
    return PurgeVerdict("flat", holder=holder)


def grew_while_open(current: float | None, lowest: float | None, trend: Trend) -> bool:
    """Whether the history stands more than TURN_SIGMAS noise deviations above `lowest`, the lowest poll from the one
    before the holder opened on (None: not read, taken as grown): its read view keeps purge from going below what
    was added since. A backlog from before it is purged past it: a dump's transaction opened at 40,000 while purge
    drained it to 2,000 was named "Held by a read view" of a history that only fell while it was open."""
    return current is None or lowest is None or current - lowest > TURN_SIGMAS * trend.noise


def nearly_empty(trend: Trend) -> float:
    """The length at or below which the history is no backlog: a HANDFUL, or TURN_SIGMAS noise deviations
    (a level a single poll's jitter reaches from 0: 11-998 around 500 at a noise of about 280)."""
    return max(HANDFUL, TURN_SIGMAS * trend.noise)


def unheld_growth(trend: Trend, purged_per_s: float | None, dml_per_s: float | None) -> str:
    """Growth with no transaction open: "early" over too few polls, "keeping-up" where purge matches DML
    within KEEP_UP, "ahead" where it purged more (a backlog's drain in the counters' minute): never
    "matches" between figures further apart."""
    if trend.polls < OWN_POLLS:
        return "early"
    if purged_per_s is not None and dml_per_s is not None and purged_per_s >= (1 - KEEP_UP) * dml_per_s:
        return "keeping-up" if purged_per_s <= (1 + KEEP_UP) * dml_per_s else "ahead"
    return "purge-bound"
