"""Compare runs: TPS, history length and one wait, each run aligned at its own start."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboards.figures.common import LABEL_SHIFT, LABEL_STEP, MARK_COLOR, PALETTE, ChartPoints, base_layout, esc
from dashboards.figures.stability import PS_PER_S, note_row, shared_axes

ROWS = [(0.56, 1.0), (0.28, 0.48), (0.0, 0.20)]


@dataclass(frozen=True)
class AlignedRun:
    label: str
    start: datetime
    tps: ChartPoints
    history: ChartPoints
    wait: ChartPoints


def seconds_since(start: datetime, points: ChartPoints, scale: float = 1.0) -> tuple[list[float], list]:
    x = [(t - start).total_seconds() for t in points.ts]
    y = [None if v is None else v * scale for v in points.values]
    return x, y


def offset_marks(layout: dict, notes: Sequence[tuple[float, str]]) -> None:
    """Annotations at their offset from their run's start."""
    for i, (x, text) in enumerate(notes):
        layout["shapes"].append({"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
                                 "line": {"color": MARK_COLOR, "width": 1, "dash": "dot"}})
        layout["annotations"].append({
            "x": x, "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom", "xanchor": "left",
            "yshift": LABEL_SHIFT + LABEL_STEP * (i % 2), "text": esc(text), "showarrow": False,
            "font": {"size": 10, "color": MARK_COLOR}, "bgcolor": "rgba(255,255,255,0.8)",
        })
    if notes:
        layout["margin"]["t"] = LABEL_SHIFT + 2 * LABEL_STEP + 14


def compare_figure(runs: Sequence[AlignedRun], wait_name: str = "",
                   notes: Sequence[tuple[float, str]] = ()) -> dict:
    """notes: (seconds since the run's start, text) of the runs' annotations."""
    titles = ["TPS (Com_commit + Com_rollback per second)", "InnoDB history list length",
              f"Wait: {wait_name} (seconds waited per second)" if wait_name else "Wait: none chosen"]
    layout = shared_axes(base_layout(height=720), ROWS, titles)
    for n in (1, 2, 3):
        layout["xaxis" if n == 1 else f"xaxis{n}"]["type"] = "linear"
    layout["xaxis3"]["title"] = {"text": "seconds since the run's start"}
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
    offset_marks(layout, notes)
    return {"data": data, "layout": layout}
