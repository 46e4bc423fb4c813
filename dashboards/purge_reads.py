"""The purge page's reads back in time: since when the history length has been above the threshold."""

from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import chain

from dashboards import reads
from dashboards.analysis.purge_growth import Since, run_since
from dashboards.timerange import TimeRange
from store import levels


def above_since(server_id: int, tr: TimeRange, threshold: float,
                in_range: Iterator[tuple[datetime, float]] | None = None) -> Since | None:
    """When the history length last rose to the threshold, read back past the range's start if need be.

    A run that began before the range is not the range's start: where it held at the range's
    first poll, the polls before it are read too, back to the oldest kept at full resolution.
    in_range: the range's reads.polls_back() of the history length, where the page has begun it (its newest).
    """
    in_range = reads.polls_back(server_id, reads.HISTORY, tr.start, tr.end) if in_range is None else in_range
    return run_since(chain(in_range, history_before(server_id, tr.start)), threshold)


def history_before(server_id: int, t: datetime) -> Iterator[tuple[datetime, float]]:
    """The history length's polls before t, newest first.

    A generator: run_since() stops at the first poll below the threshold, so where the run
    began inside the range nothing here runs, not even the look-up of the retention's edge.
    """
    oldest = levels.available_since(levels.FULL)
    yield from reads.polls_back(server_id, reads.HISTORY, oldest, t - timedelta(microseconds=1))  # t is the range's
