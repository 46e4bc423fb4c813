"""TPS's holes where the server was polled all along: its counter changed there, no outage or restart.

A poll whose TPS counter has no delta (its basis just turned on, its table truncated: collectors.delta.add_aliases)
stores no `tps`, so TPS's own samples show a hole there. The polls of its source (global_status, which holds
`tps`) say whether the server was polled: regular polls through the hole, each with an interval (a restart's
poll has none), and the hole is no stall: the dips list and the verdict leave it out, and the line is not broken.
"""

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar

import numpy as np

from collectors.metric import TPS
from dashboards.analysis.points import ChartPoints, outage_ends
from store import breaks, query
from store.points import micros

# The longest poll interval a server can have (servers.models.Server.poll_interval): a counter's change leaves a
# hole of one poll; a longer one is an outage, not read again to be sure.
LONGEST_POLL = timedelta(hours=1)
# A hole ends where the next reading began (ts - its interval), and the store keeps intervals in milliseconds: up to
# a millisecond before the poll that ended it (158 us before the poll that stored no tps, seen live).
STORED_INTERVAL = timedelta(milliseconds=1)
Line = TypeVar("Line", bound=ChartPoints)  # a store.query.Series, or reads.Empty


def polled_through(server_id: int, start: datetime, end: datetime, kept: query.HoursKept | None = None) -> bool:
    """Whether TPS's source polled the server at its usual pace through (start, end], each poll with an interval:
    read with as much again on each side, so that the usual distance between polls is known. kept: one per
    caller going forward in time (each stored hour decoded once)."""
    span = end - start
    if span > LONGEST_POLL:
        return False
    found = query.poll_columns(server_id, [TPS], start - span, end + span, kept).sources
    if not found:
        return False
    ts = np.concatenate([c.ts for c in found])
    iv = np.concatenate([c.iv for c in found])
    order = np.argsort(ts, kind="stable")
    ts, iv = ts[order], iv[order]
    inside = (ts > micros(start)) & (ts <= micros(end + STORED_INTERVAL))
    return bool(inside.any()) and bool((iv[inside] > 0).all()) and not breaks.cuts(ts).any()


def outages_not_polled(server_id: int, outages: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    """The outages a rollup line's polls had (reads.poll_outages: TPS's holes) that the server was not polled
    through: those the dips list and the verdict judge."""
    kept = query.HoursKept()
    return [(a, b) for a, b in outages if not polled_through(server_id, a, b, kept)]


def without_counter_holes(server_id: int, tps: Line) -> Line:
    """TPS's line (a store.query.Series) without the holes the server was polled through: what the chart, the
    dips list and the verdict show. A line made by hand, or with no such hole, is returned as it is."""
    if not isinstance(tps, query.Series):
        return tps
    ends, kept = outage_ends(tps), query.HoursKept()
    ts, values = list(tps.ts), list(tps.values)
    drop = {k for k in range(1, len(values) - 1)
            if values[k] is None and polled_through(server_id, ts[k - 1], ends.get(ts[k], ts[k + 1]), kept)}
    edges = tps.edge_holes
    lead, tail = (None if e is None or polled_through(server_id, *e, kept) else e for e in edges)
    if not drop and (lead, tail) == edges:
        return tps
    keep = [k for k in range(len(ts)) if k not in drop]
    gone = {ts[k] for k in drop}
    line = replace(tps, ts=[ts[k] for k in keep], values=[values[k] for k in keep],
                   resumed={t: e for t, e in ends.items() if t not in gone}, edge_holes=(lead, tail))
    if tps.us is not None:
        line.us = tps.us[keep]
    return line
