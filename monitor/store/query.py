"""The one query API of the store, used by every chart, table, alert and export.

series() picks the data by range (full resolution: hot rows and compacted
hours; or 1-minute / 1-hour rollups) and never returns more than max_points
points per series, keeping each bin's min and max. totals() sums counter
deltas exactly, in Python integers.
"""

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from monitor.store import catalog, downsample, read_full
from monitor.store.models import Gap
from monitor.store.points import Points, datetimes


@dataclass
class Series:
    server_id: int
    metric: str
    kind: str  # "counter" | "gauge"
    ts: list[datetime]
    values: list[float | None]


def series(server_ids: list[int], metrics: list[str], start: datetime, end: datetime,
           max_points: int = 1200, mode: str = "rate") -> list[Series]:
    """Series for each server and each metric name or '*' pattern, at most max_points each."""
    if mode not in ("rate", "delta"):
        raise ValueError(f"store: unknown series mode {mode!r}: use 'rate' or 'delta'")
    out = []
    for server_id in server_ids:
        infos = catalog.matching(catalog.server_metrics([server_id]), metrics)
        data = read_full.read(server_id, infos, start, end)
        for m in infos:
            pts = data.get(m.id, Points.empty())
            out.append(_series(server_id, m, pts, max_points, mode))
    return out


def _series(server_id: int, m: catalog.MetricInfo, pts: Points, max_points: int, mode: str) -> Series:
    vals = _values(m, pts, mode)
    keep = ~np.isnan(vals)
    ts, vals = pts.ts[keep], vals[keep]
    idx = downsample.minmax(ts, vals, max_points)
    return Series(server_id, m.name, m.kind, datetimes(ts[idx]), vals[idx].tolist())


def _values(m: catalog.MetricInfo, pts: Points, mode: str) -> np.ndarray:
    vals = pts.vals.astype(np.float64)
    if m.counter and mode == "rate":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pts.iv > 0, vals * 1000.0 / pts.iv, np.nan)
    return vals


def totals(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, int | float]:
    """Exact sums of the counters' per-interval deltas with start <= ts <= end (gauges are left out)."""
    infos = [m for m in catalog.matching(catalog.server_metrics([server_id]), metrics) if m.counter]
    data = read_full.read(server_id, infos, start, end)
    return {m.name: exact_sum(data.get(m.id, Points.empty()).vals) for m in infos}


def exact_sum(vals: np.ndarray) -> int | float:
    if vals.dtype.kind == "f":
        return float(np.sum(vals))
    if not len(vals):
        return 0
    # Sum in int64 chunks small enough not to overflow, then add the chunks in Python.
    biggest = int(np.abs(vals).max()) or 1
    step = max(1, min(len(vals), 2**62 // biggest))
    chunks = np.add.reduceat(vals, np.arange(0, len(vals), step))
    return sum(chunks.tolist())


def latest(server_ids: list[int], metrics: list[str]) -> dict[tuple[int, str], tuple[datetime, float]]:
    """The newest value (rate for counters) per server and metric."""
    out = {}
    for server_id in server_ids:
        infos = catalog.matching(catalog.server_metrics([server_id]), metrics)
        for m, (ts, value) in read_full.latest(server_id, infos).items():
            out[(server_id, m.name)] = (ts, value)
    return out


def metric_names(server_id: int, pattern: str = "*") -> list[str]:
    return sorted(m.name for m in catalog.matching(catalog.server_metrics([server_id]), [pattern]))


def gaps(server_id: int, start: datetime, end: datetime) -> list[tuple[datetime, datetime, str]]:
    """Recorded holes overlapping [start, end], oldest first, including those not yet saved."""
    from monitor.store import buffer

    rows = Gap.objects.filter(server_id=server_id, start__lte=end, end__gte=start).order_by("start")
    out = [(g.start, g.end, g.reason) for g in rows]
    for sid, g_start, g_end, reason in buffer.pending_gaps():
        if sid == server_id and g_start <= end and g_end >= start:
            out.append((g_start, g_end, reason))
    return sorted(out)
