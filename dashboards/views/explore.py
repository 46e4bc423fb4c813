"""The metric explorer: any collected metric of any servers on one chart, counters as rates."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards import reads
from dashboards.figures.explore import explore_figure
from dashboards.marks import marks_for
from dashboards.url_ids import parse_id
from dashboards.views.common import chart_csv, page_range, range_context
from monitor.models import Server

MAX_SERIES = 40
MAX_LISTED = 2000


def picked_ids(request: HttpRequest) -> list[int]:
    ids = [parse_id(v) for v in request.GET.getlist("server")]
    return [i for i in ids if i is not None]


def picked_metrics(request: HttpRequest) -> list[str]:
    """Selected names plus typed ones (comma separated, '*' patterns allowed)."""
    typed = [m.strip() for m in request.GET.get("pattern", "").split(",") if m.strip()]
    return list(dict.fromkeys(request.GET.getlist("metric") + typed))


def explore(request: HttpRequest) -> HttpResponse:
    tr, points = page_range(request)
    servers = list(Server.objects.all())
    ids = picked_ids(request)
    chosen = [s for s in servers if s.pk in ids]
    metrics = picked_metrics(request)
    series, names = [], []
    for server in chosen:
        names += reads.store().metric_names(server.pk, "*")
        if metrics:
            found = reads.store().series([server.pk], metrics, tr.start, tr.end, max_points=points)
            series += [(f"{server.name} · {s.metric}", s) for s in found]
    truncated = len(series) > MAX_SERIES
    fig = explore_figure(series[:MAX_SERIES], marks_for(ids, tr.start, tr.end), request.GET.get("log") == "1",
                         (tr.start, tr.end))
    return render(request, "dashboards/explore.html", {
        **range_context(request, tr), "servers": servers, "ids": ids, "metrics": metrics,
        "names": sorted(set(names))[:MAX_LISTED], "pattern": request.GET.get("pattern", ""),
        "figures": {"explore-chart": fig}, "truncated": truncated, "max_series": MAX_SERIES,
        "log": request.GET.get("log") == "1",
        "csvs": [(s.name, chart_csv(s.pk, metrics, tr, points)) for s in chosen] if metrics else [],
    })
