"""The purge-lag view: history length against innodb_max_purge_lag, TPS, purge work, DML delay."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import PALETTE, Mark, add_marks, base_layout, hole_shapes, line, pin_time_axis
from dashboards.figures.stability import TPS_TITLE, flat, note_row, shared_axes

ROWS = [(0.58, 1.0), (0.40, 0.51), (0.20, 0.32), (0.0, 0.12)]
HISTORY_TITLE = "InnoDB history list length"
TITLES_BELOW_TPS = ["Purge activity per second (INNODB_METRICS)", "DML delay from purge lag (µs)"]


@dataclass(frozen=True)
class Reference:
    """A history length drawn across the chart: the server's innodb_max_purge_lag, an alert rule's threshold."""

    label: str
    value: float
    server_setting: bool = False  # innodb_max_purge_lag: dashed red; a rule's or the page's: dotted grey


def purge_figure(
    history: ChartPoints,
    tps: ChartPoints,
    purge: Sequence[tuple[str, ChartPoints]],
    delay: ChartPoints | None,
    references: Sequence[Reference] = (),
    marks: Sequence[Mark] = (),
    x_range: tuple[datetime, datetime] | None = None,
    tps_title: str = TPS_TITLE,
) -> dict:
    """The history row is scaled to the data: a reference far above it (the built-in 1,000,000 while the
    history climbs 44,000) would flatten the climb; such a line is named in the legend as above the scale."""
    titles = [HISTORY_TITLE, tps_title, *TITLES_BELOW_TPS]
    layout = pin_time_axis(shared_axes(base_layout(height=800), ROWS, titles), x_range)
    layout["hovermode"] = "x"
    layout["shapes"] = hole_shapes(history)
    data = [line(history, "history list length", 1, line={"width": 1.8, "color": "#b54708"})]
    top = data_top(history)
    if top is not None:
        layout["yaxis"]["range"] = [0, top]
    for ref in references:
        above = top is not None and ref.value > top
        style = ({"width": 1.2, "dash": "dash", "color": "#dc2626"} if ref.server_setting
                 else {"width": 1, "dash": "dot", "color": "#667085"})
        data.append(line(flat(history, ref.value), ref.label + (" (above this scale)" if above else ""), 1,
                         hoverinfo="skip", line=style))
    data.append(line(tps, "TPS", 2, line={"width": 1.4, "color": "#101828"}))
    for i, (name, points) in enumerate(purge):
        data.append(line(points, name, 3, line={"width": 1.2, "color": PALETTE[i % len(PALETTE)]}))
    if delay is not None:
        data.append(line(delay, "purge_dml_delay_usec", 4, line={"width": 1.2, "color": "#dc2626"}))
    note_row(layout, 1, history.ts, "no history length samples in this range", ROWS)
    note_row(layout, 2, tps.ts, "no TPS samples in this range", ROWS)
    note_row(layout, 3, purge, "purge counters are off on this server (see below)", ROWS)
    note_row(layout, 4, delay.ts if delay else [], "purge_dml_delay_usec is off or not exposed", ROWS)
    return {"data": data, "layout": add_marks(layout, marks, x_range)}


def data_top(history: ChartPoints) -> float | None:
    """The history row's upper end: the highest value drawn and a tenth more; None with nothing to draw."""
    values = [v for v in history.values if v is not None]
    return max(values) * 1.1 if values and max(values) > 0 else None
