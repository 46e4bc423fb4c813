"""The InnoDB pressure page: redo, buffer pool, flushing, row locks, purge against DML, DML delay; one time axis."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import PALETTE, Mark, add_marks, base_layout, line, pin_time_axis
from dashboards.figures.stability import flat, note_row, shared_axes

TITLES = ["Redo: checkpoint age against capacity (MiB)", "Buffer pool pages: dirty and free",
          "Pages flushed per second (and why, where exposed)", "Row locks: waits per second and waiting now",
          "Purge against DML: rows per second", "DML delay from purge lag (µs per row)"]
GAP = 0.045
MIB = 2**20


def row_domains(n: int) -> list[tuple[float, float]]:
    """n equal rows, top to bottom, with room between them for the titles."""
    height = (1 - GAP * (n - 1)) / n
    return [(round(1 - i * (height + GAP) - height, 4), round(1 - i * (height + GAP), 4)) for i in range(n)]


ROWS = row_domains(len(TITLES))
EMPTY = {1: "no checkpoint age collected (see the sources below)", 2: "no buffer pool samples in this range",
         3: "no flushing samples in this range", 4: "no row lock samples in this range",
         5: "no purge or DML samples in this range", 6: "purge_dml_delay_usec is off or not exposed"}


def pressure_figure(lines: Sequence[tuple[int, str, ChartPoints, float]], capacity: tuple[str, float] | None = None,
                    marks: Sequence[Mark] = (), x_range: tuple[datetime, datetime] | None = None) -> dict:
    """lines: (row, name, points, scale); capacity: (label, bytes) drawn flat over the checkpoint age.

    x_range pins the time axis to the page's range: ten minutes of data in a 24 h view show as such.
    """
    layout = pin_time_axis(shared_axes(base_layout(height=1100), ROWS, TITLES), x_range)
    layout["hovermode"] = "x"
    data = []
    for i, (row, name, points, scale) in enumerate(lines):
        data.append(line(points, name, row, scale=scale, legendgroup=f"row{row}",
                         line={"width": 1.3, "color": PALETTE[i % len(PALETTE)]}))
    age = next((p for row, _, p, _ in lines if row == 1), None)
    if capacity is not None and age is not None:
        label, size = capacity
        data.append(line(flat(age, size), label, 1, scale=1 / MIB, hoverinfo="skip", legendgroup="row1",
                         line={"width": 1.2, "dash": "dash", "color": "#dc2626"}))
    for row in range(1, len(TITLES) + 1):
        note_row(layout, row, [p for r, _, p, _ in lines if r == row and p.ts], EMPTY[row], ROWS)
    return {"data": data, "layout": add_marks(layout, marks, x_range)}
