"""The purge-lag view: history length against innodb_max_purge_lag, TPS, purge work, DML delay."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.figures.common import (
    PALETTE,
    ChartPoints,
    Mark,
    add_marks,
    base_layout,
    hole_shapes,
    line,
    pin_time_axis,
)
from dashboards.figures.stability import TPS_TITLE, flat, note_row, shared_axes

ROWS = [(0.58, 1.0), (0.40, 0.51), (0.20, 0.32), (0.0, 0.12)]
HISTORY_TITLE = "InnoDB history list length"
TITLES_BELOW_TPS = ["Purge activity per second (INNODB_METRICS)", "DML delay from purge lag (µs)"]


def purge_figure(
    history: ChartPoints,
    tps: ChartPoints,
    purge: Sequence[tuple[str, ChartPoints]],
    delay: ChartPoints | None,
    max_purge_lag: float | None = None,
    threshold: float | None = None,
    marks: Sequence[Mark] = (),
    x_range: tuple[datetime, datetime] | None = None,
    tps_title: str = TPS_TITLE,
) -> dict:
    titles = [HISTORY_TITLE, tps_title, *TITLES_BELOW_TPS]
    layout = pin_time_axis(shared_axes(base_layout(height=800), ROWS, titles), x_range)
    layout["hovermode"] = "x"
    layout["shapes"] = hole_shapes(history)
    data = [line(history, "history list length", 1, line={"width": 1.8, "color": "#b54708"})]
    if max_purge_lag:
        data.append(line(flat(history, max_purge_lag), "innodb_max_purge_lag", 1, hoverinfo="skip",
                         line={"width": 1.2, "dash": "dash", "color": "#dc2626"}))
    if threshold and threshold != max_purge_lag:
        data.append(line(flat(history, threshold), "threshold", 1, hoverinfo="skip",
                         line={"width": 1, "dash": "dot", "color": "#667085"}))
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
