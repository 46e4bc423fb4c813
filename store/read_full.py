"""Full-resolution reads: hot rows and compacted hours, merged transparently."""

from datetime import datetime

import numpy as np

from store import breaks, catalog, read_blocks, read_raw
from store.catalog import MetricInfo
from store.points import SampleArrays, concat, from_micros


def read(server_id: int, metrics: list[MetricInfo], start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id with start <= ts <= end."""
    if not metrics:
        return {}
    layouts = catalog.server_layouts([server_id])
    hot = read_raw.read(server_id, metrics, layouts, start, end)
    compacted = read_blocks.read(server_id, [m.id for m in metrics], start, end)
    return {mid: concat([p for p in (compacted.get(mid), hot.get(mid)) if p is not None])
            for mid in set(hot) | set(compacted)}


def latest(server_id: int, metrics: list[MetricInfo]) -> dict[MetricInfo, tuple[datetime, float]]:
    """The newest value (rate for counters) of each metric that has one."""
    if not metrics:
        return {}
    layouts = catalog.server_layouts([server_id])
    found = read_raw.newest(server_id, metrics, layouts)
    missing = [m.id for m in metrics if m.id not in found]
    found |= read_blocks.newest(server_id, missing)
    out = {}
    for m in metrics:
        pts = found.get(m.id)
        if pts is None or not len(pts):
            continue
        spans = breaks.spanning(pts.iv, pts.ts) if m.counter else np.zeros(len(pts), dtype=bool)
        for k in range(len(pts) - 1, -1, -1):
            if spans[k]:
                break  # the newest delta covers an outage: its rate is the outage's average, no reading of now
            value = _value(m, pts.vals[k].item(), int(pts.iv[k]))
            if value is not None:
                out[m] = (from_micros(pts.ts[k]), value)
                break
    return out


def _value(m: MetricInfo, v, interval_ms: int) -> float | None:
    if m.counter:
        return v * 1000.0 / interval_ms if interval_ms > 0 else None
    return float(v)
