"""Compare runs: TPS, history length and one wait, each run aligned at its own start."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from collectors.metric import PS_PER_S
from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import LABEL_SHIFT, LABEL_STEP, MARK_COLOR, PALETTE, base_layout, esc, labels_for
from dashboards.figures.stability import TPS_TITLE, note_row, shared_axes

ROWS = [(0.56, 1.0), (0.28, 0.48), (0.0, 0.20)]


@dataclass(frozen=True)
class AlignedRun:
    label: str
    start: datetime
    tps: ChartPoints
    history: ChartPoints
    wait: ChartPoints
    seconds: float = 0.0  # the run's length (after its warm-up): the axis ends at the longest


def seconds_since(start: datetime, points: ChartPoints, scale: float = 1.0) -> tuple[list[float], list]:
    x = [(t - start).total_seconds() for t in points.ts]
    y = [None if v is None else v * scale for v in points.values]
    return x, y


def offset_marks(layout: dict, notes: Sequence[tuple[float, str]], longest: float) -> None:
    """Annotations at their offset from their run's start, labels staggered and cut short as on every chart."""
    notes = sorted(notes)
    for x, _ in notes:
        layout["shapes"].append({"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
                                 "line": {"color": MARK_COLOR, "width": 1, "dash": "dot"}})
    labels = labels_for([x / (longest or 1.0) for x, _ in notes], [x for x, _ in notes], [t for _, t in notes])
    layout["annotations"] += labels
    if labels:
        layout["margin"]["t"] = LABEL_SHIFT + (1 + max(a["yshift"] - LABEL_SHIFT for a in labels) // LABEL_STEP) \
            * LABEL_STEP + 14


def compare_figure(runs: Sequence[AlignedRun], wait_name: str = "",
                   notes: Sequence[tuple[float, str]] = ()) -> dict:
    """notes: (seconds since the end of the run's warm-up, text) of the runs' annotations."""
    titles = [TPS_TITLE, "InnoDB history list length",  # runs of servers that may count TPS differently
              f"Wait: {wait_name} (seconds waited per second)" if wait_name else "Wait: none chosen"]
    layout = shared_axes(base_layout(height=720), ROWS, titles)
    for n in (1, 2, 3):
        layout["xaxis" if n == 1 else f"xaxis{n}"]["type"] = "linear"
    layout["xaxis3"]["title"] = {"text": "seconds since the end of the run's warm-up"}
    layout["hovermode"] = "x"
    data = []
    for i, run in enumerate(runs):
        color = PALETTE[i % len(PALETTE)]
        rows = [(run.tps, 1.0), (run.history, 1.0), (run.wait, 1 / PS_PER_S)]
        for n, (points, scale) in enumerate(rows, start=1):
            x, y = seconds_since(run.start, points, scale)
            data.append({
                "type": "scatter", "mode": "lines", "name": esc(run.label), "x": x, "y": y,
                "xaxis": "x" if n == 1 else f"x{n}", "yaxis": "y" if n == 1 else f"y{n}",
                "line": {"width": 1.5, "color": color}, "legendgroup": f"run{i}",
                "showlegend": n == 1, "connectgaps": False,
            })
    if not runs:
        note_row(layout, 1, [], "pick two or more runs to compare", ROWS)
    longest = max((run.seconds for run in runs), default=0.0)
    if longest > 0:
        layout["xaxis"]["range"] = [0, longest]  # the longest run, not a note or a stray point past it
        layout["xaxis"]["autorange"] = False
    offset_marks(layout, [(x, text) for x, text in notes if not longest or 0 <= x <= longest], longest)
    return {"data": data, "layout": layout}
