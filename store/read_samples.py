"""The stored samples of a server over a range, as they were written: for moving a run to another installation.

Full-resolution points (hot rows and compacted hours) regrouped by source and poll time into
Samples, so that writing them elsewhere (store.ingest.write_now) stores the same series.
Samples past the raw retention are gone: nothing is read for them.
"""

from collections import defaultdict
from datetime import datetime

from store import catalog, read_full
from store.points import from_micros
from store.sample import Sample


def samples(server_id: int, start: datetime, end: datetime) -> list[Sample]:
    """Every sample of the server with start <= ts <= end, in time order."""
    metrics = catalog.server_metrics([server_id])
    source_of = sources_of(server_id)
    found = read_full.read(server_id, metrics, start, end)
    polls: dict[tuple[str, int], dict] = defaultdict(lambda: {"values": {}, "counters": set(), "iv": -1})
    for m in metrics:
        pts = found.get(m.id)
        if pts is None or m.id not in source_of:
            continue
        for ts, value, iv in zip(pts.ts.tolist(), pts.vals.tolist(), pts.iv.tolist(), strict=True):
            poll = polls[(source_of[m.id], ts)]
            poll["values"][m.name] = value
            poll["iv"] = max(poll["iv"], iv)
            if m.counter:
                poll["counters"].add(m.name)
    return [Sample(server_id, source, from_micros(ts), poll["iv"] / 1000 if poll["iv"] > 0 else None,
                   poll["values"], frozenset(poll["counters"]))
            for (source, ts), poll in sorted(polls.items(), key=lambda item: (item[0][1], item[0][0]))]


def sources_of(server_id: int) -> dict[int, str]:
    """metric id -> the source whose rows hold it."""
    out = {}
    for layout in catalog.server_layouts([server_id]):
        for metric_id in (*layout.int_ids, *layout.float_ids):
            out[metric_id] = layout.source
    return out


def poll_times(server_id: int, start: datetime, end: datetime) -> set[tuple[str, datetime]]:
    """(source, ts) of the server's samples with start <= ts <= end: which polls it holds."""
    source_of = sources_of(server_id)
    metrics = catalog.server_metrics([server_id])
    found = read_full.read(server_id, metrics, start, end)
    times: set[tuple[str, int]] = set()
    for m in metrics:
        pts = found.get(m.id)
        if pts is not None and m.id in source_of:
            times.update((source_of[m.id], ts) for ts in pts.ts.tolist())
    return {(source, from_micros(ts)) for source, ts in times}
