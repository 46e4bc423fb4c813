"""The metric explorer: any collected metric of any servers on one chart, counters as rates."""

from dataclasses import replace

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards import reads
from dashboards.export import units
from dashboards.figures.explore import explore_figure
from dashboards.marks import marks_for
from dashboards.url_ids import parse_id
from dashboards.views.common import chart_csv, page_range, range_context
from servers.models import Server

MAX_SERIES = 40
MAX_LISTED = 2000


def picked_ids(request: HttpRequest) -> tuple[list[int], list[str]]:
    """The server ids asked for, and a note for each value that is not one."""
    raw = request.GET.getlist("server")
    ids = [parse_id(v) for v in raw]
    bad = [f"server={v!r} is not a server id" for v, i in zip(raw, ids, strict=True) if i is None]
    return [i for i in ids if i is not None], bad


def picked_metrics(request: HttpRequest) -> list[str]:
    """Selected names plus typed ones (comma separated, '*' patterns allowed)."""
    typed = [m.strip() for m in request.GET.get("pattern", "").split(",") if m.strip()]
    return list(dict.fromkeys(request.GET.getlist("metric") + typed))


def in_units(server: Server, s) -> tuple[str, object]:
    """(legend label with the unit, points): picosecond timers in seconds, as every other page and the CSV show them."""
    scale = units.scale(s.metric)
    if scale != 1.0:
        s = replace(s, values=[None if v is None else v * scale for v in s.values])
    return f"{server.name} · {s.metric} ({units.unit(s.metric, s.kind)})", s


def unmatched(metrics: list[str], chosen: list[Server]) -> list[str]:
    """A note for each name or pattern that matches no metric of the chosen servers (the CSV would refuse it)."""
    return [f"{m!r} matches no metric of {', '.join(s.name for s in chosen)}" for m in metrics
            if not any(reads.store().metric_names(s.pk, m) for s in chosen)]


def explore(request: HttpRequest) -> HttpResponse:
    tr, points = page_range(request)
    servers = list(Server.objects.all())
    ids, notes = picked_ids(request)
    chosen = [s for s in servers if s.pk in ids]
    notes += [f"server={i} is not a server" for i in ids if i not in {s.pk for s in servers}]
    metrics = picked_metrics(request)
    series, names = [], []
    for server in chosen:
        names += reads.store().metric_names(server.pk, "*")
        wanted = reads.first_matching(server.pk, metrics, MAX_SERIES + 1 - len(series)) if metrics else []
        if wanted:  # one past what is drawn: enough to say the rest is left out
            found = reads.store().series([server.pk], wanted, tr.start, tr.end, max_points=points)
            series += [in_units(server, s) for s in found]
    if chosen:
        notes += unmatched(metrics, chosen)
    truncated = len(series) > MAX_SERIES
    fig = explore_figure(series[:MAX_SERIES], marks_for(ids, tr.start, tr.end), request.GET.get("log") == "1",
                         (tr.start, tr.end))
    return render(request, "dashboards/explore.html", {
        **range_context(request, tr), "servers": servers, "ids": ids, "metrics": metrics,
        "names": sorted(set(names))[:MAX_LISTED], "pattern": request.GET.get("pattern", ""),
        "figures": {"explore-chart": fig}, "truncated": truncated, "max_series": MAX_SERIES,
        "log": request.GET.get("log") == "1", "notes": notes,
        "csvs": [(s.name, chart_csv(s.pk, metrics, tr, points)) for s in chosen] if metrics else [],
    })
