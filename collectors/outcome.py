"""A source's reading turned into its result: deltas, the sample for the store, the snapshot; or its failure.

Shared by the runners of both kinds of source (collectors.poll for MySQL, collectors.http_poll for HTTP).
"""

import time
from datetime import UTC, datetime

from collectors import delta
from collectors.pool import Target
from collectors.results import SourceResult
from collectors.source import Reading, Source
from store.sample import Sample


def succeeded(target: Target, source: Source, reading: Reading, previous: delta.Snapshot | None, boot: float | None,
              t0: float) -> tuple[SourceResult, delta.Snapshot, delta.Delta]:
    """The result of a reading read since t0, and the snapshot the next reading is compared with."""
    duration = elapsed_ms(t0)
    read_at = time.time()
    change, snapshot = (source.compute or delta.compute)(previous, reading, read_at, boot)
    sample = None
    if change.values:
        sample = Sample(target.server_id, source.name, datetime.fromtimestamp(read_at, UTC), change.interval,
                        change.values, change.counters)
    note = "; ".join(text for text in (reading.note, change.dropped) if text)
    outcome = SourceResult(source.name, True, duration, note=note, reset=change.reset, sample=sample,
                           extra=reading.extra)
    return outcome, snapshot, change


def failed(target: Target, source: Source, t0: float, message: str) -> SourceResult:
    return SourceResult(source.name, False, elapsed_ms(t0), f"{target.name}: {source.name}: {message}")


def elapsed_ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000
