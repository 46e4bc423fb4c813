"""A sweep's range read as its steps: the load changed by design at each step's start, so TPS's levels are the
steps' own, never a drift across them (a 1/2/4/8-thread sweep read "Drifting: TPS 34.67 %/min" live)."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise

import numpy as np

from dashboards.analysis.levels import Shift, apart


@dataclass(frozen=True)
class Step:
    """One step of a sweep (a run): its load from start to end, its warm-up left out of its level."""

    start: datetime
    end: datetime
    warmup: timedelta = timedelta(0)


def step_shifts(ts: Sequence[datetime], values: Sequence[float | None], steps: Sequence[Step]) -> tuple[Shift, ...]:
    """A level change at the first poll of each step whose level lies apart from the level before it (a level
    change's own test, levels.apart: SHIFT_MIN of their polls' mean); a step that does not joins that level, its
    polls with it (1 and 2 threads on a saturated host: 351.6 and 351.8 TPS by sysbench's count). A step with
    no poll of its own makes no level."""
    groups: list[tuple[datetime, list[float]]] = []  # each level's first poll and its polls
    for step in steps:
        own = step_polls(ts, values, step)
        if not own:
            continue
        if groups and not apart(np.array(groups[-1][1]), np.array(own)):
            groups[-1][1].extend(own)
        else:
            groups.append((next(t for t in ts if t > step.start), own))
    return tuple(Shift(at, sum(before) / len(before), sum(after) / len(after))
                 for (_, before), (at, after) in pairwise(groups))


def step_polls(ts: Sequence[datetime], values: Sequence[float | None], step: Step) -> list[float]:
    """The step's polls after its warm-up, the first of them left out: its interval began before the step's load
    did (the step before's, or the pause between them)."""
    inside = [v for t, v in zip(ts, values, strict=True) if v is not None and step.start + step.warmup < t <= step.end]
    return inside[1:]
