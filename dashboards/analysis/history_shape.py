"""The history length's shape over a range: each rise that fell back (a read view held, then released), then the rest,
and a rise at its end that has not fallen back yet.

One slope through a hump says "draining" of a history that rose and came back; docs/dashboards.md
("Stability verdict") defines a hump and the rest fitted after the last one.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

import numpy as np

from dashboards.analysis.segment import FLAT_RUN, TURN_SIGMAS, last_cliff, noise

HUMP_MIN = 1000  # undo logs: a rise and a fall both at least this large (and beyond the noise) make a hump,
# its peak this far above the wander around it (stands_out)
RISE_SHARE = 3  # a rise at the end is at most a third of the polls after the last hump: a longer one is a drift
AROUND = 12  # polls either side of a hump (a minute at 5 s) whose highest is the wander it must stand out of
SETTLED = 0.01  # a drain has settled at the first poll within this share of its fall of the lowest after it


@dataclass(frozen=True)
class Hump:
    """The history length rose to `peak` and fell back: at once (a cliff: a read view released) or draining."""

    rose_at: datetime  # the lowest poll before the peak, where the rise began
    peak: float
    peak_at: datetime
    fell_at: datetime  # the cliff's bottom poll, or the poll a drain settled at
    fell_to: float
    cliff: bool
    held_by: str = ""  # the transaction that held it (thread, user@host), when the collector saw one
    held_from: datetime | None = None
    held_to: datetime | None = None  # the last poll that saw it


@dataclass(frozen=True)
class Shape:
    humps: tuple[Hump, ...]
    rest: int  # index of the first point after the last hump (0: none), where a trend is fitted from


@dataclass(frozen=True)
class Rise:
    """The last `polls` polls of the history length rose from about `level` to `to`, not fallen back (an open hump)."""

    level: float  # the median of the polls before it
    to: float  # the last poll
    polls: int
    rose_at: datetime  # its first poll
    last_at: datetime
    held_by: str = ""  # the transaction open at the last poll (thread, user@host), when the collector saw one
    held_from: datetime | None = None


class Holder(Protocol):
    """Who held the oldest transaction (collectors.models.TrxHolder has these)."""

    thread_id: int
    started_at: datetime
    seen_at: datetime
    ended_at: datetime | None

    @property
    def who(self) -> str: ...


def shape(ts: Sequence[datetime], ys: Sequence[float]) -> Shape:
    """The humps, oldest first (spans), those that stand out of the wander around them (stands_out): the
    rises and falls of HUMP_MIN found first, left out of the wander each is measured against."""
    found, _ = spans(ys, lambda span: True)
    kept, rest = spans(ys, lambda span: stands_out(ys, span, found))
    humps = tuple(Hump(ts[s.low], ys[s.top], ts[s.top], ts[s.bottom], ys[s.bottom], cliff=s.cliff) for s in kept)
    return Shape(humps, rest if humps else 0)


@dataclass(frozen=True)
class Span:
    """A hump's polls: where its rise began, its peak, where its fall settled."""

    low: int
    top: int
    bottom: int
    cliff: bool


def spans(ys: Sequence[float], keep: Callable[[Span], bool]) -> tuple[list[Span], int]:
    """The humps that `keep` keeps, and where the rest starts: each cliff (segment.last_cliff, newest first,
    each before the last) after a rise of HUMP_MIN, then the drains after the last one that rose and fell
    HUMP_MIN and beyond the noise.

    A cliff more than two polls after the piece's peak ends a drain (purge emptied most of it first).
    """
    cuts = []
    end = len(ys)
    while (cut := last_cliff(ys[:end])[0]) > 0:
        cuts.append(cut)
        end = cut
    found, start = [], 0
    for cut in reversed(cuts):
        top = start + int(np.argmax(ys[start:cut]))
        low = start + newest_lowest(ys[start:top + 1])
        hump = Span(low, top, settled_from(ys, cut, ys[top]), cliff=cut - top <= 2)
        if ys[top] - ys[low] >= HUMP_MIN and keep(hump):
            found.append(hump)
            start = cut
    sigma = noise(ys[start:])
    while (span := drain(ys, start, sigma)) is not None and keep(span):
        found.append(span)
        start = span.bottom
    return found, start


def stands_out(ys: Sequence[float], span: Span, found: Sequence[Span]) -> bool:
    """Whether the hump's peak is HUMP_MIN above the highest of the AROUND polls either side of it that are in
    no hump found: the line's own wander. Polls wandering 0 to 1,200 all run long, one of them 1,198 between
    0 and 24, rose and fell 1,000 without standing out of them: purge keeps up.

    Where fewer than FLAT_RUN polls are left to measure the wander by, the median top of the other swings found
    is its top too: a line swinging smoothly 0 to 1,200 and back is all swings of 1,200, each a hump by the
    polls outside them (none), where none stands out of the others."""
    near = range(max(span.low - AROUND, 0), min(span.bottom + AROUND + 1, len(ys)))
    wander = [ys[i] for i in near if not any(s.low <= i <= s.bottom for s in (span, *found))]
    others = [ys[s.top] for s in found if s.top != span.top]
    if len(wander) < FLAT_RUN and others:
        wander.append(float(np.median(others)))
    return ys[span.top] - max(wander, default=ys[span.low]) >= HUMP_MIN


def settled_from(ys: Sequence[float], cut: int, peak: float) -> int:
    """Where a fall to the cliff's bottom `cut` settled: the first poll from it within SETTLED of the fall of the
    lowest the polls after it fall to, one after another (97,913, 59,113, 21,264, the cliff's bottom, then 293
    and 55 settled at 293); the bottom itself where the next poll is no lower."""
    end = cut
    while end + 1 < len(ys) and ys[end + 1] < ys[end]:
        end += 1
    lowest = ys[end]
    return next(i for i in range(cut, end + 1) if ys[i] <= lowest + SETTLED * (peak - lowest))


def drain(ys: Sequence[float], start: int, sigma: float) -> Span | None:
    """The hump of ys[start:] that rose to its highest poll and drained after it, to where it settled."""
    y = np.asarray(ys[start:], dtype=float)
    if len(y) < 3:
        return None
    top = int(np.argmax(y))
    low = newest_lowest(y[:top + 1])
    bottom = float(y[top:].min())
    least = max(HUMP_MIN, TURN_SIGMAS * sigma)
    if y[top] - y[low] < least or y[top] - bottom < least:
        return None
    settled = top + int(np.flatnonzero(y[top:] <= bottom + SETTLED * (y[top] - bottom))[0])
    return Span(start + low, start + top, start + settled, cliff=False)


def newest_lowest(ys: Sequence[float] | np.ndarray) -> int:
    """The index of the newest of the lowest values: where a rise from a flat floor began."""
    y = np.asarray(ys, dtype=float)
    return int(len(y) - 1 - np.argmin(y[::-1]))


def named(humps: Sequence[Hump], holders: Sequence[Holder], interval: float,
          ts: Sequence[datetime] = (), ys: Sequence[float | None] = ()) -> tuple[Hump, ...]:
    """Each hump with the oldest transaction that held it: open at its peak (held_up) and found gone by its fall
    (each source stamps its own time in a poll: half an interval either way). ts, ys: the history's polls."""
    slack = timedelta(seconds=interval / 2)
    out = []
    for hump in humps:
        fits = [h for h in holders if h.started_at <= hump.peak_at and h.ended_at is not None
                and hump.peak_at - slack <= h.ended_at <= hump.fell_at + slack and held_up(hump, h, slack, ts, ys)]
        h = min(fits, key=lambda h: h.started_at, default=None)
        out.append(hump if h is None else replace(
            hump, held_by=f"thread {h.thread_id}, {h.who}", held_from=h.started_at, held_to=h.seen_at))
    return tuple(out)


def held_up(hump: Hump, holder: Holder, slack: timedelta, ts: Sequence[datetime],
            ys: Sequence[float | None]) -> bool:
    """Whether the holder held the hump up: the peak's poll saw it, or, gone by then (released just before it,
    the history still growing for part of that poll), the last poll that saw it found the history half-way up
    the rise at least. A transaction blocked 6 s by a FLUSH TABLES WITH READ LOCK was last seen at 18, and the
    next poll found it gone and the writes the lock held back at 1,520: it held none of that."""
    polls = [(t, y) for t, y in zip(ts, ys, strict=True) if y is not None]
    if holder.seen_at >= hump.peak_at - slack or not polls:
        return True
    seen = [y for t, y in polls if t <= holder.seen_at + slack]
    floor = next((y for t, y in polls if t >= hump.rose_at), hump.peak)
    return bool(seen) and seen[-1] - floor >= (hump.peak - floor) / 2


def rising(ys: Sequence[float]) -> int:
    """How many of the last polls rose and have not fallen back (0: none): the most, at most a third, each
    at least a hump's rise (HUMP_MIN, and 4 noise deviations of the polls before) above the median of the
    polls before, none of which reaches that far (a line growing throughout is a drift, not a rise), their
    highest standing out of the wander before them (rise_stands_out)."""
    y = np.asarray(ys, dtype=float)
    if len(y) < RISE_SHARE:
        return 0
    tail_min = np.minimum.accumulate(y[::-1])  # tail_min[k - 1]: the lowest of the last k polls
    head_max = np.maximum.accumulate(y)  # head_max[len(y) - k - 1]: the highest of the polls before them
    for k in range(len(y) // RISE_SHARE, 0, -1):
        before = y[:-k]
        if tail_min[k - 1] <= head_max[len(y) - k - 1]:
            continue
        top = float(np.median(before)) + max(HUMP_MIN, TURN_SIGMAS * noise(before.tolist()))
        if tail_min[k - 1] >= top > head_max[len(y) - k - 1] and rise_stands_out(y, k):
            return k
    return 0


def rise_stands_out(y: np.ndarray, k: int) -> bool:
    """Whether the last k polls' highest is HUMP_MIN above the highest of the AROUND polls before them, as a
    hump's peak must be (stands_out): a line wandering 0 to 1,200 around a median of 250, whose last poll
    reached 1,260, 60 above its wander's top, rose 1,010 above that median without standing out of it."""
    return float(y[-k:].max()) - float(y[-k - AROUND:-k].max()) >= HUMP_MIN


def open_rise(ts: Sequence[datetime], ys: Sequence[float], holders: Sequence[Holder], interval: float) -> Rise | None:
    """The rise at the end (rising), with the oldest transaction open at its last poll: begun by it and not
    found gone by it (half an interval either way, as in named), open while it rose (rose_while_open)."""
    k = rising(ys)
    if not k:
        return None
    rise = Rise(float(np.median(ys[:-k])), float(ys[-1]), k, ts[-k], ts[-1])
    slack = timedelta(seconds=interval / 2)
    fits = [h for h in holders if h.started_at <= rise.last_at + slack
            and (h.ended_at is None or h.ended_at > rise.last_at + slack) and rose_while_open(ts, ys, h, rise)]
    h = min(fits, key=lambda h: h.started_at, default=None)
    return rise if h is None else replace(rise, held_by=f"thread {h.thread_id}, {h.who}", held_from=h.started_at)


def rose_while_open(ts: Sequence[datetime], ys: Sequence[float], holder: Holder, rise: Rise) -> bool:
    """Whether the history rose half the rise at least while the holder was open: from the lowest poll from the one
    before it opened on, as held_up asks of a hump's. A transaction opened on the rise's last polls, the history
    already up, held none of it: purge removes what was committed before its read view."""
    first = max((i for i, t in enumerate(ts) if t <= holder.started_at), default=0)
    return rise.to - min(ys[first:]) >= (rise.to - rise.level) / 2
