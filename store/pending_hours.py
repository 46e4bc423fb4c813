"""Hour buckets of pending days (store.rollup_days), derived once per version of the day and kept.

Until a day's 1-hour rollups are written, readers derive its hour buckets
from its 1-minute rollups: up to 1,440 buckets per metric read and decoded
on every request. They change only when compaction writes one of the day's
hours (or retention drops its minutes), and each such write gives the day a
new version from a sequence that never repeats a value. So what was derived
is kept per (server, day, metric) with the version it came from, and served
only while the database still shows that version.

The version is read before the 1-minute rollups: a compaction that commits
in between makes what is kept newer than its version, never older, and the
next read sees the new version and derives it again.
"""

import threading
from collections import OrderedDict, defaultdict
from datetime import datetime, timedelta

import numpy as np

from store import rollup_days, rollups

# Pending days of one server in a range, with their versions.
PENDING_DAYS = (
    "SELECT day, version FROM store_pendingday WHERE server_id = %s AND day >= %s AND day <= %s ORDER BY day"
)
KEEP = 10_000  # (server, day, metric) entries of ~2 kB; the least recently used go first

_kept: OrderedDict = OrderedDict()
_lock = threading.Lock()


def forget() -> None:
    with _lock:
        _kept.clear()


def hours(cur, server_id: int, metric_ids: list[int], start: datetime, end: datetime) -> dict[int, list[dict]]:
    """Hour buckets (numbered from the epoch) per metric, one set per pending day in the range."""
    cur.execute(PENDING_DAYS, [server_id, start - timedelta(days=1), end])
    out: dict[int, list[dict]] = defaultdict(list)
    for day, version in cur.fetchall():
        for mid, b in _day(cur, server_id, day, version, metric_ids).items():
            if len(b["idx"]):
                out[mid].append(b)
    return out


def _day(cur, server_id: int, day: datetime, version: int, metric_ids: list[int]) -> dict[int, dict]:
    found = _lookup(server_id, day, version, metric_ids)
    missing = [mid for mid in metric_ids if mid not in found]
    if missing:
        built = rollup_days.day_hours(cur, server_id, day, missing, relative=False)
        made = {mid: _frozen(built.get(mid, rollups.empty())) for mid in missing}
        _keep(server_id, day, version, made)
        found |= made
    return found


def _lookup(server_id: int, day: datetime, version: int, metric_ids: list[int]) -> dict[int, dict]:
    found = {}
    with _lock:
        for mid in metric_ids:
            kept = _kept.get((server_id, day, mid))
            if kept is not None and kept[0] == version:
                _kept.move_to_end((server_id, day, mid))
                found[mid] = kept[1]
    return found


def _keep(server_id: int, day: datetime, version: int, made: dict[int, dict]) -> None:
    with _lock:
        for mid, b in made.items():
            _kept[(server_id, day, mid)] = (version, b)
            _kept.move_to_end((server_id, day, mid))
        while len(_kept) > KEEP:
            _kept.popitem(last=False)


def _frozen(b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Shared between requests: read-only, so no caller can change what another one gets."""
    for v in b.values():
        v.flags.writeable = False
    return b
