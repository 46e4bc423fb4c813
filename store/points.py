"""SampleArrays: one metric's samples as numpy arrays, the unit every reader returns."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class SampleArrays:
    ts: np.ndarray  # int64 microseconds since the Unix epoch, ascending
    vals: np.ndarray  # int64 (exact) or float64
    iv: np.ndarray  # int64 interval in ms, -1 where unknown

    @classmethod
    def empty(cls) -> "SampleArrays":
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64))

    def __len__(self) -> int:
        return len(self.ts)


def micros(t: datetime) -> int:
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    d = t - UNIX_EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def from_micros(us: int) -> datetime:
    return UNIX_EPOCH + timedelta(microseconds=int(us))


def datetimes(us: np.ndarray) -> list[datetime]:
    """UTC-aware datetimes from Unix microseconds.

    A float of Unix seconds is within 0.25 us of the exact value until 2106, so
    fromtimestamp's rounding is exact (and ~4x faster than building timedeltas).
    """
    return [datetime.fromtimestamp(s, UTC) for s in (us / 1e6).tolist()]


def concat(parts: list[SampleArrays]) -> SampleArrays:
    """Join parts, sorted by time, one point per timestamp (a poll stored twice counts once)."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return SampleArrays.empty()
    if len(parts) == 1:
        return parts[0]
    ts = np.concatenate([p.ts for p in parts])
    kinds = {p.vals.dtype.kind for p in parts}
    dtype = np.int64 if kinds == {"i"} else np.float64
    vals = np.concatenate([p.vals.astype(dtype, copy=False) for p in parts])
    iv = np.concatenate([p.iv for p in parts])
    order = np.argsort(ts, kind="stable")
    ts, vals, iv = ts[order], vals[order], iv[order]
    keep = np.ones(len(ts), dtype=bool)
    keep[1:] = ts[1:] != ts[:-1]
    return SampleArrays(ts[keep], vals[keep], iv[keep])
