"""Scalability charts: TPS against client threads (log2 axis), one line per curve, the top waits per
transaction and the host CPU per transaction against threads. Pure: curves in, figures out."""

import math
from collections.abc import Sequence

from dashboards.analysis.scalability import Curve, Level
from dashboards.analysis.usl import UslFit
from dashboards.figures.common import PALETTE, base_layout, empty_note, esc

DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
PS_PER_US = 1e6
KNEE_COLOR = "#dc2626"
FIT_POINTS = 60


def rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def threads_axis(curves: Sequence[Curve]) -> dict:
    """Log scale with a tick at each level swept: doubling threads is one step to the right."""
    levels = sorted({lv.concurrency for c in curves for lv in c.levels})
    return {"type": "log", "title": {"text": "client threads (log scale)"}, "tickvals": levels,
            "ticktext": [str(v) for v in levels], "showgrid": True, "gridcolor": "#eef0f3", "zeroline": False}


def band(curve: Curve, color: str, group: str) -> list[dict]:
    """p5 then p95 filled to it: the spread of the per-sample TPS at each level."""
    measured = [lv for lv in curve.levels if lv.tps.p5 is not None]
    x = [lv.concurrency for lv in measured]
    common = {"type": "scatter", "mode": "lines", "x": x, "line": {"width": 0, "color": color},
              "legendgroup": group, "showlegend": False, "hoverinfo": "skip", "meta": "band"}
    return [{**common, "name": esc(f"{curve.name} p5"), "y": [lv.tps.p5 for lv in measured]},
            {**common, "name": esc(f"{curve.name} p95"), "y": [lv.tps.p95 for lv in measured],
             "fill": "tonexty", "fillcolor": rgba(color, 0.15)}]


def tps_line(curve: Curve, color: str, group: str) -> dict:
    hover = [f"{esc(lv.run.name)}<br>{threads(lv.concurrency)}: {lv.tps.avg or 0:,.1f} TPS "
             f"(p5 {lv.tps.p5 or 0:,.1f}, p95 {lv.tps.p95 or 0:,.1f}, {lv.tps.samples} samples)"
             for lv in curve.levels]
    name = curve.name + (f" · {curve.label}" if curve.label and curve.label != curve.name else "")
    return {"type": "scatter", "mode": "lines+markers", "name": esc(name), "legendgroup": group,
            "x": [lv.concurrency for lv in curve.levels], "y": [lv.tps.avg for lv in curve.levels],
            "customdata": [lv.run.pk for lv in curve.levels], "text": hover, "hoverinfo": "text",
            "line": {"width": 2, "color": color}, "marker": {"size": 8}, "meta": "tps"}


def own_line(curve: Curve, color: str, group: str) -> dict:
    """The load's own TPS, dotted: drawn where other clients ran part of the server's transactions."""
    measured = [(lv, own) for lv in curve.levels if (own := lv.own) and own.tps is not None]
    hover = [f"{esc(lv.run.name)}<br>{threads(lv.concurrency)}: {own.tps:,.1f} TPS counted by {esc(own.tool)}"
             for lv, own in measured]
    return {"type": "scatter", "mode": "lines+markers", "name": esc(f"{curve.name} · the load's own TPS"),
            "legendgroup": group, "x": [lv.concurrency for lv, _ in measured], "y": [own.tps for _, own in measured],
            "text": hover, "hoverinfo": "text", "line": {"width": 2, "color": color, "dash": "dot"},
            "marker": {"size": 6, "symbol": "diamond"}, "meta": "own"}


def knee_mark(knee: Level, color: str, still_scaling: bool = False) -> dict:
    # On a log axis an annotation's x is given as log10 of the value.
    text = f"still scaling at {threads(knee.concurrency)}" if still_scaling else f"knee: {threads(knee.concurrency)}"
    return {"x": math.log10(knee.concurrency), "y": knee.rate, "xref": "x", "yref": "y",
            "text": esc(text), "showarrow": True, "arrowhead": 2,
            "ax": 0, "ay": -36, "font": {"size": 11, "color": KNEE_COLOR}, "arrowcolor": color,
            "bgcolor": "rgba(255,255,255,0.85)"}


def threads_layout(curves: Sequence[Curve], height: int, y_title: str) -> dict:
    """Threads across (log axis), y_title up from zero."""
    layout = base_layout(height=height)
    layout.update(hovermode="closest", xaxis=threads_axis(curves),
                  yaxis={"title": {"text": y_title}, "rangemode": "tozero"})
    return layout


def fit_line(curve: Curve, fit: UslFit, color: str, group: str) -> dict:
    """The law's TPS across the levels swept (log-spaced), dashed: how well it follows the points."""
    lo, hi = curve.levels[0].concurrency, curve.levels[-1].concurrency
    x = [lo * (hi / lo) ** (k / (FIT_POINTS - 1)) for k in range(FIT_POINTS)]
    return {"type": "scatter", "mode": "lines", "name": esc(f"{curve.name} · USL fit (R² {fit.r2_text})"),
            "legendgroup": group, "x": x, "y": [fit.predict(n) for n in x], "hoverinfo": "x+y",
            "line": {"width": 1.5, "color": color, "dash": "dash"}, "meta": "fit"}


def tps_figure(curves: Sequence[Curve], fits: Sequence[UslFit | None] = ()) -> dict:
    layout = threads_layout(curves, 460, "TPS (average after warm-up, band p5-p95)")
    data = []
    for i, curve in enumerate(curves):
        color, group = PALETTE[i % len(PALETTE)], f"curve{i}"
        data += band(curve, color, group) + [tps_line(curve, color, group)]
        if curve.others_levels:
            data.append(own_line(curve, color, group))
        fit = fits[i] if i < len(fits) else None
        if fit is not None:
            data.append(fit_line(curve, fit, color, group))
        if curve.knee is not None:
            layout["annotations"].append(knee_mark(curve.knee, color, curve.still_scaling))
    if not any(c.levels for c in curves):
        empty_note(layout, "no runs with a concurrency picked: record a sweep with stress --sweep or bench_run")
    return {"data": data, "layout": layout}


def waits_figure(curves: Sequence[Curve], events: Sequence[str]) -> dict:
    """Microseconds waited per transaction, one colour per wait, one dash per curve."""
    layout = threads_layout(curves, 420, "µs waited per transaction")
    data = []
    for i, curve in enumerate(curves):
        for k, event in enumerate(events):
            y = [lv.wait_per_trx(event) for lv in curve.levels]
            data.append({
                "type": "scatter", "mode": "lines+markers", "name": esc(f"{event} · {curve.name}"),
                "x": [lv.concurrency for lv in curve.levels], "y": [None if v is None else v / PS_PER_US for v in y],
                "line": {"color": PALETTE[k % len(PALETTE)], "dash": DASHES[i % len(DASHES)], "width": 1.5},
                "meta": "wait",
            })
    if not events:
        empty_note(layout, "no waits recorded in these runs (performance_schema off, or pfs_waits not polled)")
    return {"data": data, "layout": layout}


def cpu_figure(curves: Sequence[Curve]) -> dict:
    """Host CPU milliseconds per transaction, one line per curve: flat while the work per transaction holds."""
    layout = threads_layout(curves, 380, "host CPU ms per transaction")
    data = []
    for i, curve in enumerate(curves):
        measured = [lv for lv in curve.levels if lv.cpu_ms_per_trx is not None]
        data.append({"type": "scatter", "mode": "lines+markers", "name": esc(curve.name), "meta": "cpu",
                     "x": [lv.concurrency for lv in measured], "y": [lv.cpu_ms_per_trx for lv in measured],
                     "line": {"color": PALETTE[i % len(PALETTE)], "width": 2}, "marker": {"size": 7}})
    if not any(trace["x"] for trace in data):
        empty_note(layout, "no node_exporter samples inside the steps' windows")
    return {"data": data, "layout": layout}


def threads(count: int) -> str:
    return f"{count} thread{'' if count == 1 else 's'}"
