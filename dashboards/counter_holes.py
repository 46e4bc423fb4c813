"""TPS's holes where the server was polled all along: its counter changed there, no outage or restart.

A poll whose TPS counter has no delta (its basis just turned on, its table truncated: collectors.delta.add_aliases)
stores no `tps`, so TPS's own samples show a hole there. The polls of its source (global_status, which holds
`tps`) say whether the server was polled: regular polls through the hole, each with an interval (a restart's
poll has none), and the hole is no stall: the dips list and the verdict leave it out, and the line is not broken.
A stall is told by Uptime (stall_causes()): a restart, a FLUSH STATUS, or neither, an outage of the server (its
polls failed: the monitor's poll history says so) or of the monitor (no poll was made).
"""

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import numpy as np

from collectors.delta import RESTART_SLACK
from collectors.metric import TPS
from collectors.models import PollRecord
from dashboards.analysis.points import ChartPoints, outage_ends
from dashboards.analysis.stability import Dip
from store import breaks, query
from store.points import micros

# The longest poll interval a server can have (servers.models.Server.poll_interval): a counter's change leaves a
# hole of one poll; a longer one is an outage, not read again to be sure.
LONGEST_POLL = timedelta(hours=1)
# A hole ends where the next reading began (ts - its interval), and the store keeps intervals in milliseconds: up to
# a millisecond before the poll that ended it (158 us before the poll that stored no tps, seen live).
STORED_INTERVAL = timedelta(milliseconds=1)
Line = TypeVar("Line", bound=ChartPoints)  # a store.query.Series, or reads.Empty


# Up to this many holes are read one by one (a small read each); more, as on a week of a server whose polls are
# often late, are read in one pass over their whole span: a read each cost more than the span's polls.
FEW_HOLES = 10


def polled_through(server_id: int, start: datetime, end: datetime, kept: query.HoursKept | None = None) -> bool:
    """Whether TPS's source polled the server at its usual pace through (start, end], each poll with an interval:
    read with as much again on each side, so that the usual distance between polls is known. kept: one per
    caller going forward in time (each stored hour decoded once)."""
    span = end - start
    if span > LONGEST_POLL:
        return False
    return polled_in(*source_polls(server_id, start - span, end + span, kept), start, end)


def source_polls(server_id: int, start: datetime, end: datetime,
                 kept: query.HoursKept | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The times (us) and intervals of TPS's source's polls in [start, end], in time order."""
    found = query.poll_columns(server_id, [TPS], start, end, kept).sources
    if not found:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ts = np.concatenate([c.ts for c in found])
    iv = np.concatenate([c.iv for c in found])
    order = np.argsort(ts, kind="stable")
    return ts[order], iv[order]


def polled_in(ts: np.ndarray, iv: np.ndarray, start: datetime, end: datetime) -> bool:
    """polled_through() on the polls read (a span holding start - (end - start) to end + (end - start))."""
    span = end - start
    if span > LONGEST_POLL:
        return False
    lo = np.searchsorted(ts, micros(start - span), side="left")
    hi = np.searchsorted(ts, micros(end + span), side="right")
    ts, iv = ts[lo:hi], iv[lo:hi]
    inside = (ts > micros(start)) & (ts <= micros(end + STORED_INTERVAL))
    return bool(inside.any()) and bool((iv[inside] > 0).all()) and not breaks.cuts(ts).any()


def polled_holes(server_id: int, holes: list[tuple[datetime, datetime]]) -> list[bool]:
    """polled_through() of each hole (in time order): one by one when they are few, else in one read of their span
    (the holes over LONGEST_POLL are outages, not read)."""
    asked = [(a, b) for a, b in holes if b - a <= LONGEST_POLL]
    if len(asked) <= FEW_HOLES:
        kept = query.HoursKept()
        return [polled_through(server_id, a, b, kept) for a, b in holes]
    first = min(a - (b - a) for a, b in asked)
    last = max(b + (b - a) for a, b in asked)
    ts, iv = source_polls(server_id, first, last)
    return [polled_in(ts, iv, a, b) for a, b in holes]


def outages_not_polled(server_id: int, outages: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    """The outages a rollup line's polls had (reads.poll_outages: TPS's holes) that the server was not polled
    through: those the dips list and the verdict judge."""
    polled = polled_holes(server_id, outages)
    return [hole for hole, through in zip(outages, polled, strict=True) if not through]


def without_counter_holes(server_id: int, tps: Line) -> Line:
    """TPS's line (a store.query.Series) without the holes the server was polled through: what the chart, the
    dips list and the verdict show. A line made by hand, or with no such hole, is returned as it is."""
    if not isinstance(tps, query.Series):
        return tps
    ends = outage_ends(tps)
    ts, values = list(tps.ts), list(tps.values)
    inner = [k for k in range(1, len(values) - 1) if values[k] is None]
    edges = tps.edge_holes
    holes = [(ts[k - 1], ends.get(ts[k], ts[k + 1])) for k in inner]
    asked = [e for e in edges[:1] if e is not None] + holes + [e for e in edges[1:] if e is not None]  # in time
    if not asked:
        return tps
    polled = dict(zip(asked, polled_holes(server_id, asked), strict=True))
    drop = {k for k, hole in zip(inner, holes, strict=True) if polled[hole]}
    lead, tail = (None if e is None or polled[e] else e for e in edges)
    if not drop and (lead, tail) == edges:
        return tps
    keep = [k for k in range(len(ts)) if k not in drop]
    gone = {ts[k] for k in drop}
    line = replace(tps, ts=[ts[k] for k in keep], values=[values[k] for k in keep],
                   resumed={t: e for t, e in ends.items() if t not in gone}, edge_holes=(lead, tail))
    if tps.us is not None:
        line.us = tps.us[keep]
    return line


UPTIME, SINCE_FLUSH = "Uptime", "Uptime_since_flush_status"  # status gauges global_status stores every poll
# Uptime is whole seconds: a boot time read from it jitters by up to a second each side.
BOOT_SLACK = timedelta(seconds=RESTART_SLACK)


def stall_causes(server_id: int, dips: Sequence[Dip]) -> dict[datetime, str]:
    """What the Uptime gauges say about each stall (by its start), where they tell: a restart (the boot time moved),
    FLUSH STATUS (Uptime_since_flush_status began again inside it, the boot time did not move), or an outage with
    no restart (Uptime went on by the time between). A stall they do not tell (no Uptime read around it: past the
    polls' retention, or an outage still going on) is left out."""
    stalls = [d for d in dips if d.stalled]
    if not stalls:
        return {}
    start, end = stalls[0].start - timedelta(seconds=1), max(d.end for d in stalls) + LONGEST_POLL
    read = {s.metric: s for s in query.within(server_id, [UPTIME, SINCE_FLUSH], start, end)}
    uptime, since = read.get(UPTIME), read.get(SINCE_FLUSH)
    if uptime is None:
        return {}
    flushes = dict(zip(since.ts, since.values, strict=True)) if since else {}
    tries = PollTries(server_id, stalls[0].start, max(d.end for d in stalls))
    found = {d.start: stall_cause(uptime.ts, uptime.values, flushes, d, tries) for d in stalls}
    return {at: words for at, words in found.items() if words}


def stall_cause(ts: list[datetime], uptime: list, flushes: dict[datetime, float | None], dip: Dip,
                tries: "PollTries | None" = None) -> str:
    """stall_causes() of one stall: the readings at its start and at the first poll from its end on."""
    last = bisect_right(ts, dip.start + STORED_INTERVAL) - 1
    k0 = next((k for k in range(last, -1, -1) if uptime[k] is not None), None)
    k1 = next((k for k in range(bisect_left(ts, dip.end - STORED_INTERVAL), len(ts)) if uptime[k] is not None), None)
    if k0 is None or k1 is None:
        return ""
    t0, t1 = ts[k0], ts[k1]
    boot0, boot1 = t0 - timedelta(seconds=uptime[k0]), t1 - timedelta(seconds=uptime[k1])
    # Started after the poll before the stall: a boot time that moved alone may be an answer read late (as
    # collectors.delta.restarted).
    if boot1 - boot0 > BOOT_SLACK and boot1 > t0 - BOOT_SLACK:
        return f"server restarted at {boot1.astimezone(UTC):%H:%M:%S} UTC (Uptime began again)"
    flushed = flushes.get(t1)
    if flushed is not None and t1 - timedelta(seconds=flushed) > t0 - BOOT_SLACK:
        at = t1 - timedelta(seconds=flushed)
        return f"counters reset by FLUSH STATUS at {at.astimezone(UTC):%H:%M:%S} UTC, no restart (Uptime went on)"
    return outage_words(tries.within(dip.start, dip.end) if tries else None)


# An outage with no restart, by what the monitor's poll history holds inside it (PollTries.within).
SERVER_DOWN = "server unreachable or not answering (its polls failed), no restart (Uptime went on)"
NOT_POLLED = ("not polled: an outage of the monitor itself (no poll was made: its worker or beat stopped or "
              "behind), no restart (Uptime went on)")
OUTAGE = "outage, no restart (Uptime went on): the server unreachable or not answering, or not polled"


def outage_words(failed: bool | None) -> str:
    """failed: whether polls were made and failed inside the stall (None: the poll history no longer reaches it)."""
    return OUTAGE if failed is None else SERVER_DOWN if failed else NOT_POLLED


class PollTries:
    """The server's polls, failed ones included (collectors.models.PollRecord, a ring of its latest), over a span:
    whether a stall's polls failed, or none was made."""

    def __init__(self, server_id: int, start: datetime, end: datetime):
        records = PollRecord.objects.filter(server_id=server_id)
        self.oldest = records.order_by("started_at").values_list("started_at", flat=True).first()
        self.tries = list(records.filter(started_at__gt=start, started_at__lt=end)
                          .order_by("started_at").values_list("started_at", "ok"))

    def within(self, start: datetime, end: datetime) -> bool | None:
        """True: a poll failed in (start, end); False: none was made there; None: the ring no longer reaches it."""
        if self.oldest is None or self.oldest > start:
            return None
        inside = [ok for at, ok in self.tries if start < at < end]
        if not all(inside):
            return True
        # The poll that ended the stall began inside it (its reading is timed later, as it ran): one is no evidence.
        return False if len(inside) <= 1 else None
