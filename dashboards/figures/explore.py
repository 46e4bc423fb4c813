"""The metric explorer: any metrics of any servers on one time axis."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import PALETTE, Mark, add_marks, base_layout, empty_note, line, pin_time_axis


def explore_figure(
    series: Sequence[tuple[str, ChartPoints]], marks: Sequence[Mark] = (), log: bool = False,
    x_range: tuple[datetime, datetime] | None = None,
) -> dict:
    """series: (legend label, points) pairs; counters arrive as rates per second."""
    layout = base_layout(height=520)
    layout["xaxis"] = {"type": "date", "title": {"text": "time (UTC)"}, "gridcolor": "#eef0f3"}
    layout["yaxis"] = {"type": "log" if log else "linear", "gridcolor": "#eef0f3",
                       "rangemode": "normal" if log else "tozero"}
    layout["legend"] = {"orientation": "h", "y": -0.15, "font": {"size": 11}}
    data = [line(points, label, 1, line={"width": 1.4, "color": PALETTE[i % len(PALETTE)]})
            for i, (label, points) in enumerate(series)]
    if not any(points.ts for _, points in series):
        empty_note(layout, "pick a server and metrics: no samples in this range yet")
    return {"data": data, "layout": add_marks(pin_time_axis(layout, x_range), marks, x_range)}
