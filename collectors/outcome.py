"""A source's reading turned into its result: deltas, the sample for the store, the snapshot; or its failure.

Shared by the runners of both kinds of source (collectors.poll for MySQL, collectors.http_poll for HTTP).
"""

import time
from datetime import UTC, datetime

from collectors import delta
from collectors.pool import Target
from collectors.results import SourceResult
from collectors.source import Reading, Source
from collectors.status import FAILED, OFF, OK
from store.sample import Sample


def succeeded(target: Target, source: Source, reading: Reading, previous: delta.Snapshot | None, boot: float | None,
              t0: float, read_at: float | None = None) -> tuple[SourceResult, delta.Snapshot, delta.Delta]:
    """The result of a reading read since t0 (at read_at, epoch seconds, where the source knows; else now), and
    the snapshot the next reading is compared with."""
    duration = elapsed_ms(t0)
    read_at = time.time() if read_at is None else read_at
    change, snapshot, sample = sample_of(target.server_id, source.name, reading, previous, read_at, boot,
                                         source.compute or delta.compute)
    note = f"{reading.note}; {change.dropped}" if reading.note and change.dropped else reading.note or change.dropped
    outcome = SourceResult(source.name, OFF if reading.off else OK, duration, note=note, reset=change.reset,
                           sample=sample, extra=reading.extra,
                           error=f"{target.name}: {source.name}: {reading.off}" if reading.off else "")
    outcome.raw = delta.RawReading(reading, read_at, boot)
    return outcome, snapshot, change


def failed(target: Target, source: Source, t0: float, message: str, status: str = FAILED) -> SourceResult:
    return SourceResult(source.name, status, elapsed_ms(t0), f"{target.name}: {source.name}: {message}")


def elapsed_ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def sample_of(server_id: int, source: str, reading: Reading, previous: delta.Snapshot | None, read_at: float,
              boot: float | None, compute=delta.compute) -> tuple[delta.Delta, delta.Snapshot, Sample | None]:
    """The delta engine's answer for one reading, and the sample it stores (None when it has no values).

    The poll and the load of a collection file (collectors.replay) both go through here.
    """
    change, snapshot = compute(previous, reading, read_at, boot)  # a source's own (statements), else the engine
    sample = None
    if change.values:
        sample = Sample(server_id, source, datetime.fromtimestamp(read_at, UTC), change.interval,
                        change.values, change.counters)
    return change, snapshot, sample
