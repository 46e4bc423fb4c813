"""One statement's lines over a range: executions per second over its average latency, one time axis."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.figures.common import PALETTE, epoch_ms, esc

PS_PER_MS = 1e9


def statement_figure(starts: Sequence[datetime], execs_per_s: Sequence[float | None],
                     avg_ps: Sequence[float | None], title: str) -> dict:
    """Two stacked lines per bin (bins with no read are gaps: None breaks the line)."""
    x = [epoch_ms(t) for t in starts]
    latency = [None if v is None else v / PS_PER_MS for v in avg_ps]
    return {
        "data": [
            {"type": "scatter", "mode": "lines+markers", "name": "executions/s", "x": x, "y": list(execs_per_s),
             "line": {"color": PALETTE[0], "shape": "hv"}, "marker": {"size": 3}, "connectgaps": False,
             "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "mode": "lines+markers", "name": "average latency (ms)", "x": x, "y": latency,
             "line": {"color": PALETTE[1], "shape": "hv"}, "marker": {"size": 3}, "connectgaps": False,
             "xaxis": "x", "yaxis": "y2"},
        ],
        "layout": {
            "title": {"text": esc(title), "font": {"size": 13}}, "height": 420, "showlegend": True,
            "margin": {"l": 70, "r": 20, "t": 40, "b": 40},
            "xaxis": {"type": "date", "anchor": "y2"},
            "yaxis": {"title": {"text": "executions/s"}, "domain": [0.55, 1], "rangemode": "tozero"},
            "yaxis2": {"title": {"text": "avg latency (ms)"}, "domain": [0, 0.45], "rangemode": "tozero"},
        },
    }
