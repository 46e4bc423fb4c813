"""The delta engine: counters become per-interval deltas, gauges stay values, resets never spike.

The previous raw reading of each (server, source) lives in Redis (collectors.snapshots),
so whichever worker takes the next poll computes the same deltas.
"""

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from operator import sub
from typing import Any

import orjson

from collectors.source import Reading, picker

RESTART_SLACK = 2.0  # seconds: Uptime is whole seconds, so the boot time read jitters
RESTARTED = "server restarted: counters start again from zero"


def json_bytes(value: dict) -> bytes:
    """value as compact JSON by orjson, or by the standard encoder where orjson refuses it (an integer past 64 bits,
    a lone surrogate in a text)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


@dataclass(frozen=True, eq=False)
class Shape:
    """Which names of a reading are counters and which gauges, made once for a server's readings of one set of
    names and counters (most polls of a server: its status and wait events stay the same) and kept on the
    snapshot: each poll's counters and gauges are then taken by C passes, not a Python test of each value."""

    names: tuple[str, ...]  # the reading's names, in its order
    counters: frozenset[str]
    reset_markers: tuple[str, ...]
    counter_names: tuple[str, ...]  # the counters, in the reading's order
    gauge_names: tuple[str, ...]  # the other names
    marker_names: tuple[str, ...]  # the reset markers the reading has (kept in the snapshot beside the counters)
    get_counters: Callable[[Mapping], tuple]
    get_gauges: Callable[[Mapping], tuple]
    get_markers: Callable[[Mapping], tuple]
    # The counters as keys, each None: a poll's dicts of counters are copies of it filled in, which costs a
    # quarter less than building them of their names (no resizing as they grow). Never changed itself.
    counter_keys: dict[str, Any]

    def fits(self, names: tuple[str, ...], reading: Reading) -> bool:
        return (names == self.names and reading.reset_markers == self.reset_markers
                and (reading.counters is self.counters or reading.counters == self.counters))


def shape_of(names: tuple[str, ...], reading: Reading) -> Shape | None:
    """The reading's shape; None where a counter is not among its values (the general path then)."""
    counters = reading.counters
    counter_names: tuple[str, ...]
    gauge_names: tuple[str, ...]
    if counters.issuperset(names):
        counter_names, gauge_names = names, ()
    else:
        counter_names = tuple(name for name in names if name in counters)
        gauge_names = tuple(name for name in names if name not in counters)
    if len(counter_names) != len(counters):
        return None
    markers = tuple(name for name in reading.reset_markers if name in reading.values)
    return Shape(names, counters, reading.reset_markers, counter_names, gauge_names, markers,
                 picker(counter_names), picker(gauge_names), picker(markers), dict.fromkeys(counter_names))


@dataclass
class Snapshot:
    ts: float  # epoch seconds of the read
    boot: float | None  # the server's boot time (read time - Uptime), None if unknown
    values: dict[str, int | float]  # raw counter totals (or last stored values, for stored_on_change)
    # The shape of the reading it was made of (not saved: a snapshot read back from Redis has none).
    shape: Shape | None = field(default=None, compare=False, repr=False)

    def dumps(self) -> bytes:
        # orjson: the standard encoder's ~600 values a poll were a tenth of a poll's CPU.
        return json_bytes({"ts": self.ts, "boot": self.boot, "values": self.values})

    @classmethod
    def loads(cls, text: str | bytes) -> "Snapshot":
        data = json.loads(text)  # not orjson's: it reads an integer past 64 bits as a float
        values = data["values"]
        if None in values.values():  # orjson writes a NaN as null: no baseline, as for a value never read
            values = {name: value for name, value in values.items() if value is not None}
        return cls(data["ts"], data["boot"], values)


@dataclass
class RawReading:
    """A reading as the engine got it (when, against which boot time): what `collect` writes to its file."""

    reading: Reading
    read_at: float  # epoch seconds
    boot: float | None
    # The boot time the next reading is compared with, when it is not `boot` (a restart made the poll read it).
    next_boot: float | None = None


@dataclass
class Delta:
    values: dict[str, int | float]
    counters: frozenset[str]
    interval: float | None  # None on the first reading and after a reset
    reset: str = ""  # why this reading carries no deltas
    dropped: str = ""  # counters that went down alone: their delta is left out of this interval


def compute(prev: Snapshot | None, reading: Reading, ts: float, boot: float | None) -> tuple[Delta, Snapshot]:
    """What to store for this reading, and the snapshot the next reading is compared with."""
    if reading.stored_on_change:
        return changed_values(prev, reading, ts, boot)
    names = tuple(reading.values)
    shape = prev.shape if prev is not None else None
    if shape is None or not shape.fits(names, reading):
        shape = shape_of(names, reading)
    if shape is not None:
        return shaped(prev, reading, ts, boot, shape)
    # A counter that is not among the values: as it always went (the KeyError of a source's bug included).
    values, counters = reading.values, reading.counters
    if len(counters) == len(values):
        gauges, kept = {}, dict(values)
    else:
        gauges = {k: v for k, v in values.items() if k not in counters}
        kept = {k: values[k] for k in counters}
    kept.update({k: values[k] for k in reading.reset_markers if k in values})
    snapshot = Snapshot(ts, boot, kept)
    if prev is None:
        return Delta(gauges, frozenset(), None, "first reading: baseline kept"), snapshot
    return finished(prev, reading, ts, boot, gauges, counter_deltas(prev.values, reading)), snapshot


def shaped(prev: Snapshot | None, reading: Reading, ts: float, boot: float | None,
           shape: Shape) -> tuple[Delta, Snapshot]:
    """compute() by the reading's shape: the same deltas and snapshot, each step a pass of C over the values."""
    if not shape.counter_names and not shape.marker_names and (prev is None or not prev.values):
        return gauges_only(prev, reading, ts, boot, shape)
    values = reading.values
    # every value a counter, in the shape's order (fits() compared the names): no lookup by name
    now = tuple(values.values()) if not shape.gauge_names and type(values) is dict else shape.get_counters(values)
    if shape.gauge_names or shape.marker_names or type(values) is not dict:
        kept = shape.counter_keys.copy()
        kept.update(zip(shape.counter_names, now, strict=True))
        kept.update(zip(shape.marker_names, shape.get_markers(values), strict=True))
    else:  # every value a counter (the wait and latch summaries): a copy
        kept = dict(values)
    gauges = dict(zip(shape.gauge_names, shape.get_gauges(values), strict=True))
    snapshot = Snapshot(ts, boot, kept, shape)
    if prev is None:
        return Delta(gauges, frozenset(), None, "first reading: baseline kept"), snapshot
    before: Iterable[int | float]
    if prev.shape is shape:  # kept by this shape above: its first values are the counters, in the shape's order
        before = islice(prev.values.values(), len(shape.counter_names))
    else:
        try:
            before = shape.get_counters(prev.values)
        except KeyError:  # a counter new since the previous reading
            return finished(prev, reading, ts, boot, gauges, counter_deltas(prev.values, reading)), snapshot
    deltas = shape.counter_keys.copy()
    deltas.update(zip(shape.counter_names, map(sub, now, before), strict=True))
    # prev holds every counter and no other name: none of its names is missing now
    kept_all = not shape.marker_names and len(prev.values) == len(shape.counter_names)
    return finished(prev, reading, ts, boot, gauges, deltas, shape.counters, vanished=not kept_all), snapshot


def gauges_only(prev: Snapshot | None, reading: Reading, ts: float, boot: float | None,
                shape: Shape) -> tuple[Delta, Snapshot]:
    """shaped() of a reading of gauges alone (the oldest transactions, the history length, the wait instruments)
    against a snapshot of no values: no counter to take, compare or reset, only a restart to tell."""
    values = reading.values
    # A dict's names are the shape's, in its order (fits() compared them): a copy.
    if type(values) is dict:
        gauges = dict(values)
    else:
        gauges = dict(zip(shape.gauge_names, shape.get_gauges(values), strict=True))
    snapshot = Snapshot(ts, boot, {}, shape)
    if prev is None:
        return Delta(gauges, frozenset(), None, "first reading: baseline kept"), snapshot
    if restarted(prev, boot):
        return Delta(gauges, frozenset(), None, RESTARTED), snapshot
    interval = ts - prev.ts
    if reading.derive:
        gauges.update(reading.derive({}, interval))
    return Delta(gauges, shape.counters, interval), snapshot


def finished(prev: Snapshot, reading: Reading, ts: float, boot: float | None, gauges: dict[str, int | float],
             deltas: dict[str, int | float], counters: frozenset[str] | None = None, vanished: bool = True) -> Delta:
    """The reading's Delta from its gauges and its counters' deltas against prev: resets, drops, aliases, derived.

    counters: the names deltas holds, where the caller knows them; vanished: False where the caller knows that
    every name of prev is in the reading."""
    lowest = min(deltas.values()) if deltas else 0  # once: most polls have no decrease, and no loop then
    reason = reset_reason(prev, reading, boot) if may_be_reset(prev, reading, boot, deltas, lowest, vanished) else ""
    if reason:
        return Delta(gauges, frozenset(), None, reason)
    count = len(deltas)
    dropped = drop_decreases(prev.values, deltas) if lowest < 0 else ""
    add_aliases(deltas, reading.aliases, reading.values)
    interval = ts - prev.ts
    if reading.derive:
        gauges.update(reading.derive(deltas, interval))
    if reading.unstored:
        deltas = {name: value for name, value in deltas.items() if name not in reading.unstored}
    if counters is None or dropped or reading.unstored or len(deltas) != count:
        counters = frozenset(deltas)
    if not gauges:  # every value a counter (the wait summaries): the deltas are the values, not copied into {}
        return Delta(deltas, counters, interval, dropped=dropped)
    gauges.update(deltas)
    return Delta(gauges, counters, interval, dropped=dropped)


def from_before_restart(prev: Snapshot) -> Snapshot:
    """prev, marked as read before a restart this poll found by Uptime going down: a restart quicker than
    RESTART_SLACK leaves the boot times too close to show it, and a source without a marker would miss it."""
    return Snapshot(prev.ts, -math.inf, prev.values)


def restarted(prev: Snapshot, boot: float | None) -> bool:
    """The boot time moved, to after the previous reading: the server started since. Moved alone is not enough:
    boot is our clock when the answer came back minus Uptime, and an answer read late (a worker starved of CPU,
    a reconnect under load) moves it later by as much (4.9 s seen live, MariaDB's Uptime going on)."""
    return (boot is not None and prev.boot is not None and abs(boot - prev.boot) > RESTART_SLACK
            and boot > prev.ts - RESTART_SLACK)


def counter_deltas(before: dict[str, int | float], reading: Reading) -> dict[str, int | float]:
    values = reading.values
    if reading.absent_is_zero:
        return {name: values[name] - before.get(name, 0) for name in reading.counters}
    # A series seen for the first time (newly enabled, or listed only once it counted:
    # SHOW ENGINE INNODB MUTEX) only sets its baseline: its total is not this interval's.
    return {name: values[name] - before[name] for name in reading.counters if name in before}


def drop_decreases(before: dict[str, int | float], deltas: dict[str, int | float]) -> str:
    """Leave out the counters that went down (each was reset alone, or is a level); say which."""
    if not deltas or min(deltas.values()) >= 0:  # the usual case, without a Python loop
        return ""
    down = [name for name, change in deltas.items() if change < 0]
    shown = ", ".join(f"{name} ({before.get(name, 0)} -> {before.get(name, 0) + deltas.pop(name)})"
                      for name in down)
    return f"went down, so no delta this interval: {shown}"


def add_aliases(deltas: dict[str, int | float], aliases: dict[str, tuple[str, ...]],
                values: Mapping[str, int | float]) -> None:
    """An alias (tps) is the first of its choices that this reading counts by, and only that one's delta.

    Where that counter has no delta this interval (just turned on, or it went down: a reconnect,
    a TRUNCATE of its table) the alias has none either: a hole, not a lower choice's figure
    (Com_commit + Com_rollback stored as 13 for an interval of 38 transactions, under the
    sentence of the transaction summary).
    """
    for alias, choices in aliases.items():
        basis = next((name for name in choices if name in values), None)
        if basis is not None and basis in deltas:
            deltas[alias] = deltas[basis]


def may_be_reset(prev: Snapshot, reading: Reading, boot: float | None, deltas: dict[str, int | float],
                 lowest: int | float, vanished: bool = True) -> bool:
    """False when reset_reason() would surely find nothing: its loop over ~500 names runs only when needed.

    lowest: the least of deltas (0 if none); vanished: False where no name of prev can be missing from the reading."""
    if restarted(prev, boot):
        return True
    values = reading.values
    if any(m in values and m in prev.values and values[m] < prev.values[m] for m in reading.reset_markers):
        return True
    if not reading.reset_together:
        return False
    alone = reading.resets_alone
    if lowest < 0 and any(change < 0 and not name.startswith(alone) for name, change in deltas.items()):
        return True
    # A counter that vanished was zeroed (TRUNCATE) when absent means zero.
    return vanished and reading.absent_is_zero and any(prev.values[name] > 0 and not name.startswith(alone)
                                          for name in prev.values.keys() - values.keys())


def reset_reason(prev: Snapshot, reading: Reading, boot: float | None) -> str:
    """Why the counters cannot be compared with the previous reading, or "" if they can."""
    if restarted(prev, boot):
        return RESTARTED
    values, markers = reading.values, reading.reset_markers
    for marker in markers:
        if marker in values and marker in prev.values and values[marker] < prev.values[marker]:
            return f"{marker} went down ({prev.values[marker]} -> {values[marker]}): restart or FLUSH STATUS"
    if not reading.reset_together:
        return ""
    missing = 0 if reading.absent_is_zero else None
    alone = reading.resets_alone
    for name, before in prev.values.items():
        now = values.get(name, missing)
        if now is not None and now < before and name not in markers and not name.startswith(alone):
            return f"{name} went down ({before} -> {now}): counters were reset (FLUSH STATUS, TRUNCATE, restart)"
    return ""


def is_restart(reason: str) -> bool:
    """The reset was a restart of the server (new boot time, or Uptime went down)."""
    return reason == RESTARTED or reason.startswith("Uptime went down")


def changed_values(prev: Snapshot | None, reading: Reading, ts: float, boot: float | None) -> tuple[Delta, Snapshot]:
    before = prev.values if prev else {}
    changed = {k: v for k, v in reading.values.items() if before.get(k) != v}
    return Delta(changed, frozenset(), None), Snapshot(ts, boot, {**before, **reading.values})

