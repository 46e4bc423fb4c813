"""Host statistics charts (node_exporter): the stability view's CPU and disk panel, and the Host page."""

from collections.abc import Sequence
from datetime import datetime

from dashboards.analysis.points import ChartPoints
from dashboards.figures.common import PALETTE, Mark, add_marks, axis_ref, base_layout, line, pin_time_axis
from dashboards.figures.stability import note_row, shared_axes
from dashboards.figures.stacks import stack_pieces, stackable

MODE_COLORS = {"user": "#1f6feb", "nice": "#60a5fa", "system": "#d97706", "iowait": "#dc2626",
               "irq": "#7c3aed", "softirq": "#a78bfa", "steal": "#4b5563"}
PANEL_ROWS = [(0.58, 1.0), (0.0, 0.42)]
BYTES_PER_MIB = 1024 * 1024


def mode_of(metric: str) -> str:
    """host.cpu.user_pct -> user."""
    return metric.removeprefix("host.cpu.").removesuffix("_pct")


def cpu_traces(cpu: Sequence[tuple[str, ChartPoints]], axis: int, per_poll: bool = True) -> list[dict]:
    """CPU time by mode stacked, as % of the host: the stack's top is the busy share.

    One stack per stretch between holes: a stacked None is drawn as 0 %, which an outage is not.
    Stacked only where every point is one poll's reading (stacks.stackable); else lines.
    """
    if not stackable([points for _mode, points in cpu], per_poll):
        return [line(points, f"CPU {mode}", axis, legendgroup=f"cpu{axis}-{mode}", hovertemplate="%{y:.1f} %",
                     line={"width": 1.2, "color": MODE_COLORS.get(mode, "#667085")}) for mode, points in cpu]
    traces = []
    for mode, points in cpu:
        for k, part in enumerate(stack_pieces(points)):
            traces.append(line(part, f"CPU {mode}", axis, stackgroup=f"cpu{axis}-{k}",
                               legendgroup=f"cpu{axis}-{mode}", showlegend=k == 0,
                               line={"width": 0.8, "color": MODE_COLORS.get(mode, "#667085")},
                               hovertemplate="%{y:.1f} %"))
    return traces


def cpu_disk_figure(cpu: Sequence[tuple[str, ChartPoints]], device: str | None, await_ms: ChartPoints,
                    util: ChartPoints, marks: Sequence[Mark] = (),
                    x_range: tuple[datetime, datetime] | None = None, per_poll: bool = True) -> dict:
    """Under the stability chart: CPU by mode stacked (% of host), the busiest disk's await and %util."""
    disk_title = f"Disk {device}: await (ms) and utilisation (%)" if device else "Disk: await and utilisation"
    stacked = stackable([points for _mode, points in cpu], per_poll)
    cpu_title = "CPU, % of the host (stacked)" if stacked else "CPU, % of the host (lines: bins' lowest and highest)"
    layout = shared_axes(base_layout(height=380), PANEL_ROWS, [cpu_title, disk_title])
    layout["hovermode"] = "x"
    layout["yaxis"]["range"] = [0, 100]
    layout["yaxis2"]["title"] = {"text": "await ms"}
    layout["yaxis3"] = {"overlaying": "y2", "side": "right", "range": [0, 100], "dtick": 25, "showgrid": False,
                        "title": {"text": "util %"}, "anchor": "x2"}
    pin_time_axis(layout, x_range)
    data = cpu_traces(cpu, 1, per_poll)
    if device:
        data.append(line(await_ms, f"{device} await", 2, legendgroup="row2", hovertemplate="%{y:.2f} ms",
                         line={"width": 1.4, "color": "#0891b2"}))
        data.append({**line(util, f"{device} util", 2, legendgroup="row2", hovertemplate="%{y:.1f} %",
                            line={"width": 1.2, "dash": "dot", "color": "#db2777"}), "yaxis": "y3"})
    note_row(layout, 1, cpu, "no host CPU samples in this range (is node_exporter answering?)", PANEL_ROWS)
    note_row(layout, 2, await_ms.ts if device else [], "no block device moved in this range", PANEL_ROWS)
    return {"data": data, "layout": add_marks(layout, marks, x_range)}


# The Host page, top to bottom: (row key, title, y unit, scale, stacked).
HOST_ROWS = [
    ("cpu", "CPU by mode, % of the host (stacked; the rest is idle)", "%", 1.0, True),
    ("load", "Load (1 min) and run queue: processes running, blocked on I/O", "", 1.0, False),
    ("memory", "Memory (MiB)", "MiB", 1 / BYTES_PER_MIB, False),
    ("swap", "Swap in / out (pages per second)", "/s", 1.0, False),
    ("disk_ops", "Disk reads and writes per second, per device", "/s", 1.0, False),
    ("disk_util", "Disk utilisation (%), per device", "%", 1.0, False),
    ("disk_await", "Disk await (ms), per device", "ms", 1.0, False),
    ("net", "Network bytes per second received / sent, per interface", "B/s", 1.0, False),
    ("net_errors", "Network errors per second, per interface", "/s", 1.0, False),
]
ROW_HEIGHT = 190


def host_domains(count: int) -> list[tuple[float, float]]:
    step = 1.0 / count
    return [(1.0 - (i + 1) * step, 1.0 - i * step - 0.035) for i in range(count)]


def host_figure(rows: dict[str, list[tuple[str, ChartPoints]]], marks: Sequence[Mark] = (),
                x_range: tuple[datetime, datetime] | None = None, per_poll: bool = True) -> dict:
    """Every host statistic on one time axis, a row per kind."""
    domains = host_domains(len(HOST_ROWS))
    layout = shared_axes(base_layout(height=ROW_HEIGHT * len(HOST_ROWS)), domains, [r[1] for r in HOST_ROWS])
    layout["hovermode"] = "x"
    pin_time_axis(layout, x_range)
    data = []
    for n, (key, _title, unit, scale, stacked) in enumerate(HOST_ROWS, start=1):
        series = rows.get(key, [])
        data += (cpu_traces([(mode_of(m), p) for m, p in series], n, per_poll) if stacked
                 else plain_traces(series, n, unit, scale))
        note_row(layout, n, series, "nothing collected in this range", domains)
        # Plain numbers with thousands separators (0.6, 2,100,000): SI suffixes read 0.6 ms as "600m".
        layout[f"yaxis{n if n > 1 else ''}"]["tickformat"] = ",~r"
    return {"data": data, "layout": add_marks(layout, marks, x_range)}


def plain_traces(series: list[tuple[str, ChartPoints]], axis: int, unit: str, scale: float) -> list[dict]:
    return [line(points, metric.removeprefix("host."), axis, scale=scale, legendgroup=f"row{axis}",
                 line={"width": 1.2, "color": PALETTE[i % len(PALETTE)]},
                 hovertemplate="%{y:,.2f} " + unit, xaxis=axis_ref("x", axis))
            for i, (metric, points) in enumerate(series)]
