"""Stacked areas that break at holes: Plotly draws a hole (None) in a stack as zero, so a stack
is cut into one stack per stretch between holes (the stability waits, the host CPU)."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboards.analysis.points import ChartPoints

MAX_PIECES = 20  # beyond this many holes a series is stacked as one piece (its holes drop to zero)


@dataclass(frozen=True)
class Piece:
    """A stretch of a series between two holes."""

    ts: list[datetime]
    values: list[float]


def pieces(points: ChartPoints) -> list[Piece]:
    """The series cut at its holes (None): a stacked area cannot break, but separate stacks can."""
    out: list[Piece] = []
    ts: list[datetime] = []
    values: list[float] = []
    for t, v in zip(points.ts, points.values, strict=True):
        if v is None:
            out.append(Piece(ts, values))
            ts, values = [], []
        else:
            ts.append(t)
            values.append(v)
    out.append(Piece(ts, values))
    return [p for p in out if p.ts]


def stack_pieces(points: ChartPoints) -> Sequence[ChartPoints]:
    """What to stack separately, the k-th piece of each series in stack k (their holes are the same polls')."""
    parts = pieces(points)
    return parts if len(parts) <= MAX_PIECES else [points]


def stackable(series: Sequence[ChartPoints], per_poll: bool) -> bool:
    """Whether the series may be stacked: each point one poll's reading (a rollup bucket's min or max
    stacked on another's is a total no poll measured: user 70 % and system 70 % in different polls read
    140 %), and every series read at the same points (Plotly takes a point one series lacks for 0)."""
    if not per_poll:
        return False
    first = list(series[0].ts) if series else []
    return all(list(points.ts) == first for points in series[1:])
