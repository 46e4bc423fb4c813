"""Host statistics (node_exporter) on the server pages: the stability view's CPU/disk panel, and the Host page."""

from dataclasses import dataclass, field

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from dashboards import host_series, reads
from dashboards.figures.host import cpu_disk_figure, host_figure
from dashboards.marks import server_marks
from dashboards.timerange import TimeRange
from dashboards.views.common import chart_csv, page_range, range_context
from servers.models import Server

PANEL_ID, HOST_ID = "host-chart", "host-page-chart"
NO_AGENT = ("No host statistics: this server has no node_exporter URL. Set one on the server's edit page "
            "(or addserver --node-exporter URL) to see CPU, disk and network beside TPS and waits.")


@dataclass
class HostPanel:
    """What a page adds for its host panel: figures to draw, the CSV link, or why there is nothing."""

    figures: dict = field(default_factory=dict)
    csv: str = ""
    device: str | None = None
    missing: str = ""


def host_panel(server: Server, tr: TimeRange, points: int, marks=None) -> HostPanel:
    """The stability view's CPU and disk panel, on the page's time range."""
    if not server.node_exporter_url and not host_series.has_host_metrics(server.pk):
        return HostPanel(missing=NO_AGENT)
    panel = host_series.cpu_disk(server.pk, tr, points)
    marks = server_marks(server.pk, tr.start, tr.end) if marks is None else marks
    figure = cpu_disk_figure(panel.cpu, panel.device, panel.await_ms, panel.util, marks, (tr.start, tr.end),
                             reads.per_poll(tr, points))
    return HostPanel({PANEL_ID: figure}, chart_csv(server.pk, panel.metrics, tr, points), panel.device)


def host(request: HttpRequest, server_id: int) -> HttpResponse:
    """Every host statistic of one server on one time axis."""
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    found = host_series.host_series(server.pk, tr, points)
    figure = host_figure(found.rows, server_marks(server.pk, tr.start, tr.end), (tr.start, tr.end),
                         reads.per_poll(tr, points))
    return render(request, "dashboards/host.html", {
        **range_context(request, tr), "server": server, "tab": "host", "figures": {HOST_ID: figure},
        "csv": chart_csv(server.pk, found.metrics, tr, points) if found.metrics else "",
        "missing": "" if server.node_exporter_url or found.metrics else NO_AGENT,
        "source": health_of_source(server, "node_exporter"),
    })


def health_of_source(server: Server, name: str) -> dict | None:
    """The collectors' last word on one source of this server (ok, error, note), None before any poll."""
    try:
        return (server.health.sources or {}).get(name)
    except Exception:  # noqa: BLE001 - RelatedObjectDoesNotExist: never polled
        return None
