"""The delta engine: counters become per-interval deltas, gauges stay values, resets never spike.

The previous raw reading of each (server, source) lives in Redis (collectors.snapshots),
so whichever worker takes the next poll computes the same deltas.
"""

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from collectors.source import Reading

RESTART_SLACK = 2.0  # seconds: Uptime is whole seconds, so the boot time read jitters
RESTARTED = "server restarted: counters start again from zero"


def json_bytes(value: dict) -> bytes:
    """value as compact JSON by orjson, or by the standard encoder where orjson refuses it (an integer past 64 bits,
    a lone surrogate in a text)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


@dataclass
class Snapshot:
    ts: float  # epoch seconds of the read
    boot: float | None  # the server's boot time (read time - Uptime), None if unknown
    values: dict[str, int | float]  # raw counter totals (or last stored values, for stored_on_change)

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
    values, counters = reading.values, reading.counters
    if len(counters) == len(values):  # every value a counter (the wait and latch summaries): copies, no loops
        gauges, kept = {}, dict(values)
    else:
        gauges = {k: v for k, v in values.items() if k not in counters}
        kept = {k: values[k] for k in counters}
    kept.update({k: values[k] for k in reading.reset_markers if k in values})
    snapshot = Snapshot(ts, boot, kept)
    if prev is None:
        return Delta(gauges, frozenset(), None, "first reading: baseline kept"), snapshot
    deltas = counter_deltas(prev.values, reading)
    reason = reset_reason(prev, reading, boot) if may_be_reset(prev, reading, boot, deltas) else ""
    if reason:
        return Delta(gauges, frozenset(), None, reason), snapshot
    dropped = drop_decreases(prev.values, deltas)
    add_aliases(deltas, reading.aliases, reading.values)
    interval = ts - prev.ts
    if reading.derive:
        gauges.update(reading.derive(deltas, interval))
    if reading.unstored:
        deltas = {name: value for name, value in deltas.items() if name not in reading.unstored}
    gauges.update(deltas)
    return Delta(gauges, frozenset(deltas), interval, dropped=dropped), snapshot


def from_before_restart(prev: Snapshot) -> Snapshot:
    """prev, marked as read before a restart this poll found by Uptime going down: a restart quicker than
    RESTART_SLACK leaves the boot times too close to show it, and a source without a marker would miss it."""
    return Snapshot(prev.ts, -math.inf, prev.values)


def restarted(prev: Snapshot, boot: float | None) -> bool:
    return boot is not None and prev.boot is not None and abs(boot - prev.boot) > RESTART_SLACK


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


def may_be_reset(prev: Snapshot, reading: Reading, boot: float | None, deltas: dict[str, int | float]) -> bool:
    """False when reset_reason() would surely find nothing: its loop over ~500 names runs only when needed."""
    if restarted(prev, boot):
        return True
    values = reading.values
    if any(m in values and m in prev.values and values[m] < prev.values[m] for m in reading.reset_markers):
        return True
    if not reading.reset_together:
        return False
    alone = reading.resets_alone
    if deltas and min(deltas.values()) < 0 and any(
            change < 0 and not name.startswith(alone) for name, change in deltas.items()):
        return True
    # A counter that vanished was zeroed (TRUNCATE) when absent means zero.
    return reading.absent_is_zero and any(prev.values[name] > 0 and not name.startswith(alone)
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

