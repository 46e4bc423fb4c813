"""The stability view: TPS over the top waits over InnoDB mutex waits, one shared time axis."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from collectors.metric import PS_PER_S
from dashboards.analysis.points import ChartPoints
from dashboards.analysis.stability import Dip, Threshold
from dashboards.figures.common import (
    PALETTE,
    Mark,
    add_marks,
    axis_key,
    base_layout,
    esc,
    hole_shapes,
    iso,
    line,
    pin_time_axis,
)
from dashboards.figures.stacks import stack_pieces, stackable

DIP_FILL = "rgba(220, 38, 38, 0.12)"
# Row domains, top to bottom: TPS, waits, mutex waits (with gaps for the titles).
ROWS = [(0.66, 1.0), (0.33, 0.57), (0.0, 0.24)]
# The TPS row's title names the server's counter (collectors.transactions.chart_title); this one says none.
TPS_TITLE = "TPS (transactions per second)"
WAITS_TITLE = "Top waits: seconds waited per second (stacked)"
# Where points are a bin's lowest and highest reading (downsampled, or rollups), their sum is no poll's.
WAITS_LINES_TITLE = "Top waits: seconds waited per second (lines: each point a bin's lowest or highest, not stacked)"
# The mutex row's title says what the server's counts are (collectors.sources.innodb_mutex.chart_title).
MUTEX_TITLE = "InnoDB mutex/rw-lock waits per second"


def shared_axes(layout: dict, rows: Sequence[tuple[float, float]], titles: Sequence[str]) -> dict:
    """One x axis per row, all matching the first: zooming one zooms all."""
    bottom = len(rows)
    for n, (domain, title) in enumerate(zip(rows, titles, strict=True), start=1):
        layout[axis_key("x", n)] = {
            "anchor": "y" if n == 1 else f"y{n}", "type": "date",
            # Every row has its time labels: a reader of the top row should not scroll to the bottom one.
            "showticklabels": True, "tickfont": {"size": 10 if n < bottom else 12},
            "showgrid": True, "gridcolor": "#eef0f3",
            **({} if n == 1 else {"matches": "x"}),
        }
        layout[axis_key("y", n)] = {
            "domain": list(domain), "anchor": "x" if n == 1 else f"x{n}", "rangemode": "tozero",
            "gridcolor": "#eef0f3", "zerolinecolor": "#d0d5dd",
        }
        layout["annotations"].append({
            "text": f"<b>{esc(title)}</b>", "xref": "paper", "yref": "paper", "x": 0,
            "y": domain[1], "yanchor": "bottom", "xanchor": "left", "showarrow": False,
            "font": {"size": 12},
        })
    layout[axis_key("x", bottom)]["title"] = {"text": "time (UTC)"}
    return layout


def dip_shapes(dips: Sequence[Dip]) -> list[dict]:
    return [{
        "type": "rect", "xref": "x", "yref": "paper", "x0": iso(d.start), "x1": iso(d.end),
        "y0": 0, "y1": 1, "fillcolor": DIP_FILL, "line": {"width": 0}, "layer": "below",
    } for d in dips]


def wait_traces(waits: Sequence[tuple[str, ChartPoints]], axis: int, timers: bool, stack: bool = False) -> list[dict]:
    """timers: picosecond timers drawn in seconds per second (else counts per second); stack: as areas."""
    traces = []
    for i, (name, points) in enumerate(waits):
        extra = {"line": {"width": 0.8, "color": PALETTE[i % len(PALETTE)]},
                 "hovertemplate": "%{y:.3f} s/s" if timers else "%{y:,.1f} /s"}
        if not stack:
            traces.append(line(points, name, axis, scale=1 / PS_PER_S if timers else 1.0,
                               legendgroup=f"row{axis}", **extra))
            continue
        for k, part in enumerate(stack_pieces(points)):
            # One stack per stretch between holes: the stacked area breaks where no poll succeeded.
            traces.append(line(part, name, axis, scale=1 / PS_PER_S, legendgroup=f"wait{axis}-{i}",
                               showlegend=k == 0, stackgroup=f"stack{axis}-{k}", type="scatter", **extra))
    return traces


def stability_figure(
    tps: ChartPoints,
    waits: Sequence[tuple[str, ChartPoints]],
    mutexes: Sequence[tuple[str, ChartPoints]],
    dips: Sequence[Dip] = (),
    marks: Sequence[Mark] = (),
    dip_threshold: Threshold | None = None,
    x_range: tuple[datetime, datetime] | None = None,
    empty_reason: str | None = None,
    tps_title: str = TPS_TITLE,
    mutex_title: str = MUTEX_TITLE,
    per_poll: bool = True,
) -> dict:
    """waits: (event, wait.time_ps rate) pairs, biggest first; mutexes: (name, waits/s) pairs.

    empty_reason says why rows are empty when it is known (the server is unreachable).
    per_poll: every point is one poll's reading (the full-resolution level, not downsampled): only
    then are the waits stacked (stacks.stackable).

    x_range pins the time axis to the page's range: lines read wider (mutexes),
    marks and labels never stretch it, and a range without data shows as such.
    """
    stack = stackable([points for _name, points in waits], per_poll)
    titles = [tps_title, WAITS_TITLE if stack else WAITS_LINES_TITLE, mutex_title]
    layout = pin_time_axis(shared_axes(base_layout(height=780), ROWS, titles), x_range)
    layout["hovermode"] = "x"
    layout["legend"]["groupclick"] = "toggleitem"
    data = [line(tps, "TPS", 1, line={"width": 1.6, "color": "#101828"}, legendgroup="row1",
                 hovertemplate="%{y:,.1f} TPS")]
    if dip_threshold is not None:
        data.append(line(threshold_line(tps, dip_threshold), "dip threshold", 1, legendgroup="row1",
                         line={"width": 1, "dash": "dash", "color": "#dc2626"}, hoverinfo="skip"))
    data += wait_traces(waits, 2, timers=True, stack=stack)
    data += wait_traces(mutexes, 3, timers=False)
    layout["shapes"] = dip_shapes(dips) + hole_shapes(tps)
    note_row(layout, 1, tps.ts, empty_reason or "no TPS samples in this range")
    note_row(layout, 2, waits, empty_reason or "no wait events collected (performance_schema off or no data)")
    note_row(layout, 3, mutexes, empty_reason or "no InnoDB mutex waits collected in this range")
    return {"data": data, "layout": add_marks(layout, marks, x_range)}


@dataclass(frozen=True)
class Flat:
    """A horizontal reference line over the span of some points."""

    ts: list
    values: list


def flat(points: ChartPoints, value: float) -> Flat:
    ts = list(points.ts)
    return Flat([ts[0], ts[-1]], [value, value]) if ts else Flat([], [])


def threshold_line(points: ChartPoints, threshold: Threshold) -> Flat:
    """The dip threshold over the span of the points: flat, or stepping at each level's first time."""
    if isinstance(threshold, float | int):
        return flat(points, threshold)
    ts, values = [], []
    for k, (start, value) in enumerate(threshold):
        if points.ts:
            end = threshold[k + 1][0] if k + 1 < len(threshold) else points.ts[-1]
            ts += [points.ts[0] if k == 0 else start, end]
            values += [value, value]
    return Flat(ts, values)


def note_row(layout: dict, row: int, rows: Sequence, text: str, domains=ROWS) -> None:
    if rows:
        return
    lo, hi = domains[row - 1]
    layout["annotations"].append({
        "text": esc(text), "xref": "paper", "yref": "paper", "x": 0.5, "y": (lo + hi) / 2,
        "showarrow": False, "font": {"size": 12, "color": "#667085"},
    })
