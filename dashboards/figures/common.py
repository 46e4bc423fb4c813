"""What every chart shares: escaping for Plotly, axes, and the marks (annotations, runs)."""

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from dashboards.analysis.points import ChartPoints, unix_seconds

PALETTE = [
    "#1f6feb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2",
    "#db2777", "#65a30d", "#9333ea", "#ea580c", "#0d9488", "#4b5563",
]
MARK_COLOR = "#7c3aed"
RUN_FILL = "rgba(31, 111, 235, 0.06)"
GAP_FILL = "rgba(102, 112, 133, 0.18)"
LABEL_SHIFT, LABEL_STEP = 18, 16  # pixels above the plot area for annotation labels


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
    """Time as epoch milliseconds (a date axis reads them as UTC; 4x cheaper than ISO strings): epoch_ms()
    of each, taken from the store's microseconds where the line carries them (unix_seconds)."""
    x = (unix_seconds(points) * 1000).astype(np.int64).tolist()
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


LABEL_CHARS = 28  # a mark's label is cut here; the full text shows on hover
LABEL_LEVELS = 3  # rows of labels above the plot
CHAR_WIDTH = 0.0075  # a label character's width as a fraction of a typical plot's width (~850 px)


def short_label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


@dataclass
class LabelGroup:
    """Labels shown as one: the first's text (and "+N"), every text on hover, on one row."""

    level: int
    members: list[int]


def place_labels(xs: Sequence[float], texts: Sequence[str]) -> list[LabelGroup]:
    """A row per label (xs as fractions of the axis, ascending) so that none overlaps another;
    a label with no free row joins the one before it."""
    ends = [-1.0] * LABEL_LEVELS
    groups: list[LabelGroup] = []
    for i, x in enumerate(xs):
        free = [k for k in range(LABEL_LEVELS) if ends[k] < x]
        if free or not groups:
            groups.append(LabelGroup(free[0] if free else 0, [i]))
        else:
            groups[-1].members.append(i)
        group = groups[-1]
        first = group.members[0]
        shown = len(texts[first]) + (len(f" +{len(group.members) - 1}") if len(group.members) > 1 else 0)
        ends[group.level] = max(ends[group.level], xs[first] + (shown + 1) * CHAR_WIDTH)
    return groups


def mark_label(x, texts: Sequence[str], level: int, right: bool) -> dict:
    """A label above the plot: cut short, "+N" for the ones it stands for, all in full on hover."""
    more = f" +{len(texts) - 1}" if len(texts) > 1 else ""
    return {
        "x": x, "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom",
        "yshift": LABEL_SHIFT + LABEL_STEP * level, "text": esc(short_label(texts[0]) + more),
        "hovertext": "<br>".join(esc(t) for t in texts),
        "showarrow": False, "xanchor": "right" if right else "left", "captureevents": True,
        "font": {"size": 10, "color": MARK_COLOR}, "bgcolor": "rgba(255,255,255,0.8)",
    }


def labels_for(xs: Sequence[float], positions: Sequence, texts: Sequence[str]) -> list[dict]:
    """Labels at positions (axis values) for texts, placed by their fractions xs of the axis."""
    groups = place_labels(xs, [short_label(t) for t in texts])
    return [mark_label(positions[g.members[0]], [texts[i] for i in g.members], g.level, xs[g.members[0]] > 0.8)
            for g in groups]


def fraction(t: datetime, x_range: tuple[datetime, datetime] | None, first: datetime, last: datetime) -> float:
    lo, hi = x_range or (first, last)
    span = (hi - lo).total_seconds() or 1.0
    return (t - lo).total_seconds() / span


TimeSpan = tuple[datetime, datetime]


def mark_shapes(marks: Sequence[Mark], x_range: TimeSpan | None = None) -> tuple[list[dict], list[dict]]:
    """Vertical lines for annotations, light bands for runs, across every subplot; labels staggered above."""
    shapes = []
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
    if not marks:
        return shapes, []
    first, last = min(m.start for m in marks), max(m.start for m in marks)
    xs = [fraction(m.start, x_range, first, last) for m in marks]
    return shapes, labels_for(xs, [iso(m.start) for m in marks], [m.text for m in marks])


def add_marks(layout: dict, marks: Sequence[Mark], x_range: tuple[datetime, datetime] | None = None) -> dict:
    shapes, labels = mark_shapes(sorted(marks, key=lambda m: m.start), x_range)
    if labels:
        rows = 1 + max(a["yshift"] - LABEL_SHIFT for a in labels) // LABEL_STEP
        layout["margin"]["t"] = max(layout["margin"]["t"], LABEL_SHIFT + rows * LABEL_STEP + 14)
    layout["shapes"] = layout.get("shapes", []) + shapes
    layout["annotations"] = layout.get("annotations", []) + labels
    return layout


def holes(points: ChartPoints) -> list[tuple[datetime, datetime]]:
    """(last poll before, first poll after) of each break (None) in a series."""
    ts, vals = list(points.ts), list(points.values)
    return [(ts[k - 1], ts[k + 1]) for k in range(1, len(vals) - 1) if vals[k] is None]


def hole_shapes(points: ChartPoints) -> list[dict]:
    """Grey bands where no poll succeeded (an outage or a restart): the line breaks there."""
    return [{
        "type": "rect", "xref": "x", "yref": "paper", "x0": iso(a), "x1": iso(b), "y0": 0, "y1": 1,
        "fillcolor": GAP_FILL, "line": {"width": 0}, "layer": "below", "name": "no polls",
    } for a, b in holes(points)]


def pin_time_axis(layout: dict, x_range: tuple[datetime, datetime] | None) -> dict:
    """The chosen range on the axis, whatever the data, marks or labels would stretch it to."""
    if x_range is not None:
        layout["xaxis"]["range"] = [iso(x_range[0]), iso(x_range[1])]
        layout["xaxis"]["autorange"] = False
    return layout


def empty_note(layout: dict, text: str) -> dict:
    """Say why a chart is empty instead of drawing blank axes."""
    layout["annotations"] = layout.get("annotations", []) + [{
        "text": esc(text), "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5,
        "showarrow": False, "font": {"size": 13, "color": "#667085"},
    }]
    return layout
