"""The metric explorer: any collected metric of any servers on one chart, counters as rates."""

from dataclasses import replace

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards import reads
from dashboards.export import units
from dashboards.figures.explore import explore_figure
from dashboards.links import chart_csv
from dashboards.marks import marks_for
from dashboards.query_params import ids_in, log_scale, metric_names, unknown_params
from dashboards.views.common import page_range, range_context
from servers.models import Server
from store.query import Series

MAX_SERIES = 40
MAX_LISTED = 2000
# What the explorer reads: its form's fields and the range's (dashboards.timerange: from, to, range, w).
PARAMS = ("server", "metric", "pattern", "log", "from", "to", "range", "w")


def in_units(server: Server, s: Series) -> tuple[str, Series]:
    """(legend label with the unit, points): picosecond timers in seconds, as every other page and the CSV show them."""
    scale = units.scale(s.metric)
    if scale != 1.0:
        s = replace(s, values=[None if v is None else v * scale for v in s.values])
    return f"{server.name} · {s.metric} ({units.unit(s.metric, s.kind)})", s


def unmatched(metrics: list[str], chosen: list[Server]) -> list[str]:
    """A note for each name or pattern that matches no metric of the chosen servers (the CSV would refuse it)."""
    return [f"{m!r} matches no metric of {', '.join(s.name for s in chosen)}" for m in metrics
            if not any(reads.metric_names(s.pk, m) for s in chosen)]


def explore(request: HttpRequest) -> HttpResponse:
    tr, points = page_range(request)
    servers = list(Server.objects.all())
    ids, bad = ids_in(request.GET.getlist("server"))
    notes = unknown_params(request.GET, PARAMS) + [f"server={v!r} is not a server id" for v in bad]
    chosen = [s for s in servers if s.pk in ids]
    notes += [f"server={i} is not a server" for i in ids if i not in {s.pk for s in servers}]
    metrics = metric_names(request.GET)
    series: list[tuple[str, Series]] = []
    names: list[str] = []
    for server in chosen:
        names += reads.metric_names(server.pk, "*")
        wanted = reads.first_matching(server.pk, metrics, MAX_SERIES + 1 - len(series)) if metrics else []
        if wanted:  # one past what is drawn: enough to say the rest is left out
            found = reads.series_map(server.pk, wanted, tr, points)
            series += [in_units(server, s) for s in found.values()]
    if chosen:
        notes += unmatched(metrics, chosen)
    truncated = len(series) > MAX_SERIES
    fig = explore_figure(series[:MAX_SERIES], marks_for(ids, tr.start, tr.end), log_scale(request.GET),
                         (tr.start, tr.end))
    return render(request, "dashboards/explore.html", {
        **range_context(request, tr), "servers": servers, "ids": ids, "metrics": metrics,
        "names": sorted(set(names))[:MAX_LISTED], "pattern": request.GET.get("pattern", ""),
        "figures": {"explore-chart": fig}, "truncated": truncated, "max_series": MAX_SERIES,
        "log": log_scale(request.GET), "notes": notes,
        "csvs": [(s.name, chart_csv(s.pk, metrics, tr, points)) for s in chosen] if metrics else [],
    })
