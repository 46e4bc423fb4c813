"""The seconds two sources both cover: what a ratio of one source's delta to another's is taken over.

Waits (or host CPU) per transaction divides one source's delta by TPS's. Each source has its own polls:
the wait summary may start later than TPS, fail for a while, or end a poll earlier at a range's edge. A sum
of waits over their polls divided by the transactions over TPS's polls mixes different seconds, and so does
a rate of each over its own seconds (it assumes TPS was the same in the seconds only one source covers).
An engineer takes both deltas over the same seconds: here, the other source's polls that TPS covers, and
the transactions of those very seconds (a TPS delta spread evenly over its interval, as its rate does;
polls read milliseconds apart share all but those milliseconds).
"""

from dataclasses import dataclass

import numpy as np

# A poll counts as covered when TPS covers all of it but this share: polls of one round are read milliseconds
# apart, and the newest TPS poll may be read a moment before the newest wait poll. 1 % is 100 ms of a 10 s poll
# and 600 ms of a 60 s node_exporter poll: a poll whose uncovered part is longer is left out.
UNCOVERED = 0.01


@dataclass(frozen=True)
class SourcePolls:
    """One source's deltas, each covering (ts - seconds, ts]; ts in Unix microseconds, ascending."""

    ts: np.ndarray
    seconds: np.ndarray
    deltas: np.ndarray

    @classmethod
    def of(cls, ts, seconds, deltas) -> "SourcePolls":
        order = np.argsort(np.asarray(ts, np.int64), kind="stable")
        return cls(np.asarray(ts, np.int64)[order], np.asarray(seconds, np.float64)[order],
                   np.asarray(deltas, np.float64)[order])

    def began(self) -> np.ndarray:
        return self.ts - np.rint(self.seconds * 1e6).astype(np.int64)

    def between(self, lo: int, hi: int) -> "SourcePolls":
        """The polls read in [lo, hi] (µs)."""
        return self.picked((self.ts >= lo) & (self.ts <= hi))

    def inside(self, lo: int, hi: int) -> "SourcePolls":
        """The polls whose whole interval lies in [lo, hi] (µs): a run window's (step_window.inside)."""
        return self.picked((self.began() >= lo) & (self.ts <= hi))

    def picked(self, keep: np.ndarray) -> "SourcePolls":
        return SourcePolls(self.ts[keep], self.seconds[keep], self.deltas[keep])


@dataclass(frozen=True)
class Shared:
    """The polls of a source that TPS covers, and TPS over the very same seconds."""

    kept: np.ndarray  # bool per poll of the source
    seconds: float  # the kept polls' seconds: what both sources cover
    transactions: float  # TPS's deltas spread over those seconds
    # Each stretch of consecutive kept polls, in microseconds: from half its first poll's interval before that
    # poll (after the poll before it, which is not kept) to its last poll, both in.
    runs: list[tuple[int, int]]

    @property
    def every_poll(self) -> bool:
        return bool(self.kept.all())


def shared_with(source: SourcePolls, tps: SourcePolls) -> Shared:
    """The source's polls whose interval TPS's polls cover, and the transactions in those intervals."""
    lo, hi = source.began(), source.ts
    length, spread = cumulative(tps)
    covered = length(hi) - length(lo)
    kept = (source.seconds > 0) & (covered >= source.seconds * (1 - UNCOVERED))
    # TPS's rate over the covered part of a poll stands for the milliseconds it leaves uncovered.
    within = (spread(hi) - spread(lo)) * source.seconds / np.where(covered > 0, covered, 1.0)
    transactions = float(within[kept].sum())
    return Shared(kept, float(source.seconds[kept].sum()), transactions, runs(source, kept))


def same_polls(seconds: float, transactions: float) -> Shared:
    """Shared of a source whose polls cover the seconds TPS's do: the same polls, every one kept."""
    return Shared(np.ones(1, bool), seconds, float(transactions), [])


def cumulative(polls: SourcePolls):
    """Two functions of a time t (µs): the seconds the polls cover up to t, and their deltas up to t, each
    delta spread evenly over its interval. A poll overlapping the one before it (stored twice) is cut."""
    hi = polls.ts
    lo = np.maximum(polls.began(), np.concatenate(([np.iinfo(np.int64).min], hi[:-1])))
    width = np.maximum(hi - lo, 0).astype(np.float64)
    full_width = np.concatenate(([0.0], np.cumsum(width)))
    full_delta = np.concatenate(([0.0], np.cumsum(np.where(width > 0, polls.deltas, 0.0))))

    def at(t: np.ndarray, full: np.ndarray, whole: np.ndarray) -> np.ndarray:
        k = np.searchsorted(hi, t, side="left")  # polls 0..k-1 end before t
        inside = k < len(hi)
        kk = np.minimum(k, max(len(hi) - 1, 0))
        part = np.zeros(len(t))
        if len(hi):
            share = np.clip((t - lo[kk]) / np.where(width[kk] > 0, width[kk], 1.0), 0.0, 1.0)
            part = np.where(inside & (width[kk] > 0), share * whole[kk], 0.0)
        return full[k] + part

    def length(t: np.ndarray) -> np.ndarray:
        return at(t, full_width, width) / 1e6

    def spread(t: np.ndarray) -> np.ndarray:
        return at(t, full_delta, np.where(width > 0, polls.deltas, 0.0))
    return length, spread


def runs(polls: SourcePolls, kept: np.ndarray) -> list[tuple[int, int]]:
    """Shared.runs of the kept polls."""
    edges = np.diff(np.concatenate(([0], kept.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    half = np.rint(polls.seconds * 5e5).astype(np.int64)
    return [(int(polls.ts[a] - half[a]), int(polls.ts[b])) for a, b in zip(starts, ends, strict=True)]
