"""The stability view's host panel (node_exporter): CPU by mode and the busiest disk, on the page's range."""

from dataclasses import dataclass, field

from dashboards import host_series, reads
from dashboards.figures.host import cpu_disk_figure
from dashboards.links import chart_csv
from dashboards.marks import server_marks
from dashboards.timerange import TimeRange
from servers.models import Server

PANEL_ID = "host-chart"
NO_AGENT = ("No host statistics: this server has no node_exporter URL. Set one on the server's edit page "
            "(or addserver --node-exporter URL) to see CPU, disk and network beside TPS and waits.")


@dataclass
class HostPanel:
    """What a page adds for its host panel: figures to draw, the CSV link, or why there is nothing."""

    figures: dict = field(default_factory=dict)
    csv: str = ""
    device: str | None = None
    missing: str = ""


def panel_disk(server: Server, tr: TimeRange) -> host_series.CpuDisk | None:
    """The panel with its disk chosen (the busiest over the range) and no line read yet: its .metrics are what
    to read, with a page's other lines over the same range; None where the server has no host statistics."""
    if not server.node_exporter_url and not host_series.has_host_metrics(server.pk):
        return None
    return host_series.CpuDisk([], host_series.busiest_device(server.pk, tr))


def panel_of(server: Server, tr: TimeRange, points: int, chosen: host_series.CpuDisk | None, found: dict,
             marks=None) -> HostPanel:
    """The stability view's CPU and disk panel on the page's range: of panel_disk()'s answer and its metrics'
    lines (found: metric -> line, read at `points` with the page's others)."""
    if chosen is None:
        return HostPanel(missing=NO_AGENT)
    panel = host_series.cpu_disk_of(chosen.device, found)
    marks = server_marks(server.pk, tr.start, tr.end) if marks is None else marks
    figure = cpu_disk_figure(panel.cpu, panel.device, panel.await_ms, panel.util, marks, (tr.start, tr.end),
                             reads.per_poll(tr, points))
    return HostPanel({PANEL_ID: figure}, chart_csv(server.pk, panel.drawn, tr, points, collected=found), panel.device)
