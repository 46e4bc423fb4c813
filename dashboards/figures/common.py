"""What every chart shares: escaping for Plotly, axes, and the marks (annotations, runs)."""

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

PALETTE = [
    "#1f6feb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2",
    "#db2777", "#65a30d", "#9333ea", "#ea580c", "#0d9488", "#4b5563",
]
MARK_COLOR = "#7c3aed"
RUN_FILL = "rgba(31, 111, 235, 0.06)"
GAP_FILL = "rgba(102, 112, 133, 0.18)"
LABEL_SHIFT, LABEL_STEP = 18, 13  # pixels above the plot area for annotation labels


class ChartPoints(Protocol):
    """A series as the store returns it (store.query.Series has these)."""

    ts: Sequence[datetime]
    values: Sequence[float | None]


@dataclass(frozen=True)
class Mark:
    """A point (annotation) or a span (run) drawn on every chart of a server."""

    text: str
    start: datetime
    end: datetime | None = None  # None: a single instant
    fill: str = ""  # a span's colour; the run colour when empty


def esc(text: str) -> str:
    """Plotly renders a subset of HTML in names, titles and hover text: show names as text."""
    return html.escape(str(text), quote=False)


def iso(ts: datetime) -> str:
    """Naive UTC: Plotly.js ignores offsets, and zoom ranges come back in the same form."""
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts.isoformat()


def epoch_ms(ts: datetime) -> int:
    return int(ts.timestamp() * 1000)


def xy(points: ChartPoints, scale: float = 1.0) -> tuple[list[int], list[float | None]]:
    """Time as epoch milliseconds (a date axis reads them as UTC; 4x cheaper than ISO strings)."""
    x = [int(t.timestamp() * 1000) for t in points.ts]
    if scale == 1.0:
        return x, list(points.values)
    return x, [None if v is None else v * scale for v in points.values]


# Below this many points a line also gets markers: a source polled every
# minute has one point in a short range, and a lone point draws no line.
SPARSE_POINTS = 60


def line(points: ChartPoints, name: str, axis: int = 1, **extra) -> dict:
    x, y = xy(points, extra.pop("scale", 1.0))
    trace = {
        "type": "scattergl" if len(x) > 5000 else "scatter",
        "mode": "lines" if len(x) > SPARSE_POINTS else "lines+markers", "name": esc(name), "x": x, "y": y,
        "xaxis": axis_ref("x", axis), "yaxis": axis_ref("y", axis),
        "line": {"width": 1.5}, "connectgaps": False,
    }
    trace.update(extra)
    return trace


def axis_ref(letter: str, n: int) -> str:
    return letter if n == 1 else f"{letter}{n}"


def axis_key(letter: str, n: int) -> str:
    return f"{letter}axis" if n == 1 else f"{letter}axis{n}"


def base_layout(title: str = "", height: int = 420) -> dict:
    return {
        "title": {"text": esc(title), "x": 0.01, "font": {"size": 15}} if title else None,
        "height": height,
        "margin": {"l": 70, "r": 20, "t": 40 if title else 20, "b": 40},
        "hovermode": "x unified",
        "legend": {"orientation": "v", "x": 1.01, "y": 1, "font": {"size": 11}},
        "plot_bgcolor": "#fff", "paper_bgcolor": "#fff",
        "font": {"family": "system-ui, sans-serif", "size": 12},
        "shapes": [], "annotations": [],
    }


def mark_shapes(marks: Sequence[Mark]) -> tuple[list[dict], list[dict]]:
    """Vertical lines for annotations, light bands for runs, across every subplot."""
    shapes, labels = [], []
    for mark in marks:
        if mark.end is None:
            shapes.append({
                "type": "line", "xref": "x", "yref": "paper", "x0": iso(mark.start), "x1": iso(mark.start),
                "y0": 0, "y1": 1, "line": {"color": MARK_COLOR, "width": 1, "dash": "dot"},
            })
        else:
            shapes.append({
                "type": "rect", "xref": "x", "yref": "paper", "x0": iso(mark.start), "x1": iso(mark.end),
                "y0": 0, "y1": 1, "fillcolor": mark.fill or RUN_FILL, "line": {"width": 0}, "layer": "below",
            })
        labels.append({
            "x": iso(mark.start), "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom",
            # Above the plot, two staggered lines: row titles sit just under them.
            "yshift": LABEL_SHIFT + LABEL_STEP * (len(labels) % 2),
            "text": esc(mark.text), "showarrow": False, "xanchor": "left",
            "font": {"size": 10, "color": MARK_COLOR}, "bgcolor": "rgba(255,255,255,0.8)",
        })
    return shapes, labels


def add_marks(layout: dict, marks: Sequence[Mark]) -> dict:
    shapes, labels = mark_shapes(marks)
    if labels:
        layout["margin"]["t"] = max(layout["margin"]["t"], LABEL_SHIFT + 2 * LABEL_STEP + 14)
    layout["shapes"] = layout.get("shapes", []) + shapes
    layout["annotations"] = layout.get("annotations", []) + labels
    return layout


def empty_note(layout: dict, text: str) -> dict:
    """Say why a chart is empty instead of drawing blank axes."""
    layout["annotations"] = layout.get("annotations", []) + [{
        "text": esc(text), "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5,
        "showarrow": False, "font": {"size": 13, "color": "#667085"},
    }]
    return layout
