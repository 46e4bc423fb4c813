"""Stability figures of a TPS line: mean, percentiles, coefficient of variation, dips."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from monitor.stats import percentile

DEFAULT_DIP_FRACTION = 0.5


@dataclass(frozen=True)
class Summary:
    points: int
    mean: float | None
    median: float | None
    p5: float | None
    p95: float | None
    cv: float | None  # standard deviation / mean: 0 is a flat line


@dataclass(frozen=True)
class Dip:
    start: datetime
    end: datetime
    lowest: float

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def summarize(values: Sequence[float | None], mean: float | None = None) -> Summary:
    """Summary of the known values; pass `mean` when an exact one (from totals) is at hand."""
    known = sorted(v for v in values if v is not None)
    if not known:
        return Summary(0, mean, None, None, None, None)
    avg = sum(known) / len(known)
    std = math.sqrt(sum((v - avg) ** 2 for v in known) / len(known))
    mean = avg if mean is None else mean
    return Summary(
        points=len(known), mean=mean, median=percentile(known, 50),
        p5=percentile(known, 5), p95=percentile(known, 95),
        cv=std / avg if avg else None,
    )


def find_dips(
    ts: Sequence[datetime], values: Sequence[float | None], threshold: float
) -> list[Dip]:
    """Runs of consecutive points below the threshold; a hole (None) ends a dip."""
    dips: list[Dip] = []
    start = lowest = None
    last = None
    for t, v in zip(ts, values, strict=True):
        if v is not None and v < threshold:
            if start is None:
                start, lowest = t, v
            lowest = min(lowest, v)
            last = t
            continue
        if start is not None:
            dips.append(Dip(start, t if v is not None else last, lowest))
            start = None
    if start is not None:
        dips.append(Dip(start, last, lowest))
    return dips


def dip_threshold(summary: Summary, fraction: float = DEFAULT_DIP_FRACTION) -> float | None:
    return None if summary.median is None else summary.median * fraction


def merge_close(dips: Sequence[Dip], gap: timedelta) -> list[Dip]:
    """Dips separated by less than `gap` read as one stall."""
    merged: list[Dip] = []
    for dip in dips:
        if merged and dip.start - merged[-1].end <= gap:
            prev = merged.pop()
            dip = Dip(prev.start, dip.end, min(prev.lowest, dip.lowest))
        merged.append(dip)
    return merged
