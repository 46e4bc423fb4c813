"""A chart's line as the pages hand it around: times and values, None at holes."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

import numpy as np


class ChartPoints(Protocol):
    """A series as the store returns it (store.query.Series has these); read-only, so frozen ones fit."""

    @property
    def ts(self) -> Sequence[datetime]: ...

    @property
    def values(self) -> Sequence[float | None]: ...


def outage_ends(points: ChartPoints) -> Mapping[datetime, datetime]:
    """When the outage of each of a line's holes ended, by the hole's time (store.query.Series.resumed); none
    known for a line made by hand: a hole then ends at the point after it."""
    return getattr(points, "resumed", None) or {}


def first_began(points: ChartPoints) -> datetime | None:
    """When the reading of a line's first point began (store.query.Series.began: ts - interval for a rate, a
    rollup bucket's start); none known for a line made by hand, or one sliced to start at a later point."""
    began = getattr(points, "began", None)
    return began[1] if began is not None and points.ts and points.ts[0] == began[0] else None


def with_edge_holes(points: ChartPoints) -> tuple[list[datetime], list[float | None], dict[datetime, datetime]]:
    """A line's times and values with a None at each hole on its edges that no None marks (store.query.Series.
    edge_holes: at the outage's start before the first point, at its end after the last), and outage_ends() with
    those holes' ends: find_dips then lists them as it lists the holes between points. Those of a line sliced past
    its first or last point are not its own: left out, as are any of a line made by hand."""
    ts, values, resumed = list(points.ts), list(points.values), dict(outage_ends(points))
    lead, tail = getattr(points, "edge_holes", (None, None))
    if lead is not None and first_began(points) is not None:
        ts, values, resumed[lead[0]] = [lead[0], *ts], [None, *values], lead[1]
    if tail is not None and ts and ts[-1] == tail[0]:
        ts, values = [*ts, tail[1]], [*values, None]
    return ts, values, resumed


def unix_seconds(points: ChartPoints) -> np.ndarray:
    """datetime.timestamp() of each of a line's times, as float64: from the Unix microseconds a store line
    carries (store.query.Series.us; us / 1e6 rounds as timestamp() does), else one call per time."""
    us = getattr(points, "us", None)
    if us is not None:
        return us / 1e6
    return seconds_of(points.ts)


def seconds_of(ts: Sequence[datetime]) -> np.ndarray:
    """datetime.timestamp() of each time, as float64."""
    return np.array([t.timestamp() for t in ts], dtype=np.float64)
