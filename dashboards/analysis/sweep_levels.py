"""A sweep's range read as its steps: the load changed by design at each step's start, so TPS's levels are the
steps' own, never a drift across them (a 1/2/4/8-thread sweep read "Drifting: TPS 34.67 %/min" live)."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from dashboards.analysis.levels import Shift


@dataclass(frozen=True)
class Step:
    """One step of a sweep (a run): its load from start to end, its warm-up left out of its level."""

    start: datetime
    end: datetime
    warmup: timedelta = timedelta(0)


def step_shifts(ts: Sequence[datetime], values: Sequence[float | None], steps: Sequence[Step]) -> tuple[Shift, ...]:
    """A level change at each step's first poll, from the level of the step before it to its own; none where
    either step has no poll of its own."""
    means = [step_level(ts, values, step) for step in steps]
    out = []
    for step, before, after in zip(steps[1:], means, means[1:], strict=False):
        first = next((t for t in ts if t > step.start), None)
        if before is not None and after is not None and first is not None:
            out.append(Shift(first, before, after))
    return tuple(out)


def step_level(ts: Sequence[datetime], values: Sequence[float | None], step: Step) -> float | None:
    """The mean of the step's polls after its warm-up, the first of them left out: its interval began before
    the step's load did (the step before's, or the pause between them)."""
    inside = [v for t, v in zip(ts, values, strict=True) if v is not None and step.start + step.warmup < t <= step.end]
    own = inside[1:]
    return sum(own) / len(own) if own else None
