"""A run's summary arithmetic: rates over the seconds covered, ratios to a reference, the warm-up in its TPS."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboards.analysis.run_verdict import MIN_POINTS, is_first_level, warmup_end
from dashboards.analysis.step_window import cut, poll_rates, run_window
from store.query import CounterSamples


def known(series: Any) -> list[float]:
    """A series' values without its holes; [] for no series."""
    return [v for v in series.values if v is not None] if series else []


def rate(total: float, seconds: float) -> float | None:
    return total / seconds if seconds else None


def ratio(value: float | None, reference: float | None) -> float | None:
    """value / reference, the seeds' 'X faster' column; None when undefined."""
    if value is None or not reference:
        return None
    return value / reference


@dataclass(frozen=True)
class Warmup:
    """The seconds left out at a run's start: the run's own, a page's trim, or found from its TPS polls."""

    seconds: int
    found: bool = False  # found from the data: the run gave none


def warmup_in(run: Any, samples: CounterSamples | None) -> Warmup:
    """The run's warm-up: its own warmup_seconds, else the one found in the TPS samples of the whole run
    (warmup_end over the per-poll rates of the polls inside it); 0 when none is found."""
    if run.warmup_seconds:
        return Warmup(run.warmup_seconds)
    whole = run_window(run, 0)
    polls = poll_rates(cut(samples, whole), whole) if samples is not None else []
    seconds = warmup_found(run.started_at, polls)
    return Warmup(seconds, seconds > 0)


def warmup_found(started_at: datetime, polls: list[tuple[datetime, float]]) -> int:
    """Seconds from the run's start to its last warm-up poll (run_verdict.warmup_end over its TPS polls); 0 for none,
    and 0 where the polls it would cut are a flat first level the load changed from (run_verdict.is_first_level, as
    a range's verdict reads them): a run at 120 TPS for 2 minutes, then 300, is no warm-up of 80 s."""
    if len(polls) < MIN_POINTS:
        return 0
    values = [v for _, v in polls]
    first = warmup_end(values)
    if not first or is_first_level([t for t, _ in polls], values, first):
        return 0
    # The last warm-up poll's time: the first steady poll measured from it, and its interval must lie inside.
    return int((polls[first - 1][0] - started_at).total_seconds())
