"""Per-server replication page: lag and thread state per channel, and what the replica says now."""

from collections.abc import Mapping
from datetime import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collectors.sources.replication import IO, LAG, SQL
from collectors.sources.replication import NAME as SOURCE  # the collectors' source of replica.* metrics
from dashboards import reads
from dashboards.analysis.points import ChartPoints
from dashboards.figures.replication import replication_figure
from dashboards.links import chart_csv
from dashboards.source_health import source_health
from dashboards.views.common import page_range, range_context
from servers.models import Server


def channel_name(metric: str) -> str:
    return metric.partition(":")[2] or "default"


def named(found: Mapping[str, ChartPoints], prefix: str, what: str) -> list[tuple[str, ChartPoints]]:
    return [(f"{what} ({channel_name(m)})", p) for m, p in sorted(found.items())
            if m == prefix or m.startswith(prefix + ":")]


def replication(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    metrics = reads.metric_names(server.pk, "replica.*")
    found = reads.series_map(server.pk, metrics, tr, points)
    threads = named(found, IO, "I/O thread") + named(found, SQL, "SQL thread")
    fig = replication_figure(named(found, LAG, "lag s"), threads, (tr.start, tr.end))
    return render(request, "dashboards/replication.html", {
        **range_context(request, tr), "server": server, "tab": "replication",
        "figures": {"replication-chart": fig} if metrics else {}, **state_context(source_health(server, SOURCE) or {}),
        "is_replica": bool(metrics),
        "csv": chart_csv(server.pk, metrics, tr, points),
    })


def state_context(state: dict) -> dict:
    """The source's last word, and when it was read as a time (the health row keeps it as ISO text with its
    microseconds), written as the other pages write times."""
    try:
        read_at = datetime.fromisoformat(state.get("at") or "")
    except (TypeError, ValueError):
        read_at = None
    return {"state": state, "read_at": read_at}
