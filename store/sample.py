"""What a collector hands to the store: one source's reading of one server at one poll."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Sample:
    server_id: int
    source: str  # the collector source's name, e.g. "pfs_waits"
    ts: datetime  # UTC, when the poll read the server
    # Seconds since this source's previous reading of the server; None on the
    # first reading and after a reset (then there are no counter values).
    interval: float | None
    # metric name -> value. Counters are per-interval deltas (Python ints for
    # picosecond timers), gauges are the value read.
    values: Mapping[str, int | float]
    counters: frozenset[str] = field(default_factory=frozenset)  # names in values that are deltas
