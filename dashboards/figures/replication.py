"""Replication at a glance: seconds behind the source, and whether the I/O and SQL threads run, per channel."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import PALETTE, base_layout, line, pin_time_axis
from dashboards.figures.stability import note_row, shared_axes

ROWS = [(0.42, 1.0), (0.0, 0.30)]
TITLES = ["Seconds behind the source (none drawn while a thread is stopped)", "Threads running (1 = Yes, 0 = No)"]


def replication_figure(lags: Sequence[tuple[str, ChartPoints]], threads: Sequence[tuple[str, ChartPoints]],
                       x_range: tuple[datetime, datetime] | None = None) -> dict:
    """x_range pins the time axis to the page's range, whatever span the samples cover."""
    layout = pin_time_axis(shared_axes(base_layout(height=520), ROWS, TITLES), x_range)
    layout["hovermode"] = "x"
    layout["yaxis2"].update(range=[-0.1, 1.1], tickvals=[0, 1], ticktext=["No", "Yes"])
    data = [line(p, name, 1, line={"width": 1.6, "color": PALETTE[i % len(PALETTE)]})
            for i, (name, p) in enumerate(lags)]
    data += [line(p, name, 2, line={"width": 1.3, "shape": "hv", "color": PALETTE[(i + 3) % len(PALETTE)]})
             for i, (name, p) in enumerate(threads)]
    note_row(layout, 1, [p for _, p in lags if p.ts], "no lag in this range (not a replica, or a thread stopped)",
             ROWS)
    note_row(layout, 2, [p for _, p in threads if p.ts], "no replication samples in this range", ROWS)
    return {"data": data, "layout": layout}
