"""The Host page: every node_exporter statistic of a server (the stability view's panel: dashboards/host_panel.py)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collectors.status import source_error
from dashboards import host_series, reads
from dashboards.figures.host import host_figure
from dashboards.host_panel import NO_AGENT
from dashboards.links import chart_csv
from dashboards.marks import server_marks
from dashboards.source_health import source_health
from dashboards.views.common import page_range, range_context
from servers.models import Server

HOST_ID = "host-page-chart"


def host(request: HttpRequest, server_id: int) -> HttpResponse:
    """Every host statistic of one server on one time axis."""
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    found = host_series.host_series(server.pk, tr, points)
    source = source_health(server, "node_exporter")
    figure = host_figure(found.rows, server_marks(server.pk, tr.start, tr.end), (tr.start, tr.end),
                         reads.per_poll(tr, points))
    return render(request, "dashboards/host.html", {
        **range_context(request, tr), "server": server, "tab": "host", "figures": {HOST_ID: figure},
        "csv": chart_csv(server.pk, found.metrics, tr, points) if found.metrics else "",
        "missing": "" if server.node_exporter_url or found.metrics else NO_AGENT,
        "source": source, "source_error": source_error(server.name, "node_exporter", source, named=False),
    })
