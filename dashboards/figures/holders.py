"""Who holds purge back: history length beside the oldest transaction's age, each holder's span shaded."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import base_layout, esc, iso, line

HOLDER_FILL = "rgba(181, 71, 8, 0.08)"


@dataclass(frozen=True)
class HolderSpan:
    """One holder of the oldest transaction over the chart: shaded from its start to its end (or now)."""

    start: datetime
    end: datetime
    label: str


def oldest_trx_figure(history: ChartPoints, oldest: ChartPoints, read_view: ChartPoints | None,
                      spans: Sequence[HolderSpan] = ()) -> dict:
    """History length (left axis) against the age of the oldest transaction and read view (right, seconds)."""
    layout = base_layout(height=320)
    layout["xaxis"] = {"type": "date", "showgrid": True, "gridcolor": "#eef0f3"}
    layout["yaxis"] = {"title": {"text": "history list length"}, "rangemode": "tozero", "gridcolor": "#eef0f3"}
    layout["yaxis2"] = {"title": {"text": "age (s)"}, "overlaying": "y", "side": "right", "rangemode": "tozero",
                        "showgrid": False}
    layout["margin"]["r"] = 70
    layout["legend"] = {"orientation": "h", "y": -0.18, "font": {"size": 11}}
    data = [line(history, "history list length", 1, line={"width": 1.8, "color": "#b54708"}),
            line(oldest, "oldest transaction age (s)", yaxis="y2", line={"width": 1.4, "color": "#1f6feb"})]
    if read_view is not None and read_view.ts:
        data.append(line(read_view, "oldest read view age (s)", yaxis="y2",
                         line={"width": 1.2, "dash": "dot", "color": "#7c3aed"}))
    layout["shapes"] = [span_shape(s) for s in spans]
    layout["annotations"] = [span_label(s) for s in spans]
    if not history.ts and not oldest.ts:
        layout["annotations"].append({"text": "no history length or oldest-transaction samples in this range",
                                      "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False})
    return {"data": data, "layout": layout}


def span_shape(span: HolderSpan) -> dict:
    return {"type": "rect", "xref": "x", "yref": "paper", "x0": iso(span.start), "x1": iso(span.end),
            "y0": 0, "y1": 1, "fillcolor": HOLDER_FILL, "line": {"width": 0}, "layer": "below"}


def span_label(span: HolderSpan) -> dict:
    return {"text": esc(span.label), "xref": "x", "yref": "paper", "x": iso(span.start), "y": 1,
            "xanchor": "left", "yanchor": "bottom", "showarrow": False, "font": {"size": 10, "color": "#b54708"}}
