"""Compare runs "apples to apples": each run's lines aligned at its own start."""

from dataclasses import dataclass

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from dashboards import reads
from dashboards.figures.compare import AlignedRun, compare_figure
from dashboards.stability_stats import Summary, summarize
from dashboards.timerange import DEFAULT_POINTS, TimeRange, max_points
from dashboards.topwaits import WaitRow
from dashboards.views.common import TPS_DEFINITION
from monitor.models import Annotation, Run

TOP_WAITS = 5


@dataclass
class RunSummary:
    run: Run
    seconds: float
    tps: Summary
    max_history: float | None
    waits: list[WaitRow]


def run_ids(request: HttpRequest) -> list[int]:
    """?runs=1,2 or ?runs=1&runs=2, in the order given."""
    raw = ",".join(request.GET.getlist("runs"))
    return list(dict.fromkeys(int(v) for v in raw.split(",") if v.strip().isdigit()))


def run_range(run: Run) -> TimeRange:
    return TimeRange(run.started_at, run.ended_at or timezone.now())


def compare(request: HttpRequest) -> HttpResponse:
    ids = run_ids(request)
    by_id = {r.pk: r for r in Run.objects.filter(pk__in=ids).select_related("server")}
    runs = [by_id[i] for i in ids if i in by_id]
    points = max_points(request.GET) if "w" in request.GET else DEFAULT_POINTS
    summaries = [summarize_run(run) for run in runs]
    wait = request.GET.get("wait") or next((s.waits[0].event for s in summaries if s.waits), "")
    aligned = [align(run, wait, points) for run in runs]
    events = sorted({w.event for s in summaries for w in s.waits})
    return render(request, "dashboards/compare.html", {
        "runs": runs, "summaries": summaries, "wait": wait, "events": events,
        "all_runs": Run.objects.select_related("server")[:200], "ids": ids,
        "figures": {"compare-chart": compare_figure(aligned, wait, run_notes(runs))},
        "tps_definition": TPS_DEFINITION,
        "csv": "/export/compare.csv?runs=" + ",".join(str(r.pk) for r in runs),
        "report": "/reports/compare/?runs=" + ",".join(str(r.pk) for r in runs),
    })


def align(run: Run, wait: str, points: int) -> AlignedRun:
    tr = run_range(run)
    metrics = [reads.TPS, reads.HISTORY] + ([reads.TIME_PREFIX + wait] if wait else [])
    found = reads.series_map(run.server_id, metrics, tr, points)
    return AlignedRun(
        f"{run.name} ({run.server.name})", run.started_at,
        found.get(reads.TPS) or reads.Empty(), found.get(reads.HISTORY) or reads.Empty(),
        found.get(reads.TIME_PREFIX + wait) or reads.Empty(),
    )


def summarize_run(run: Run) -> RunSummary:
    tr = run_range(run)
    found = reads.series_map(run.server_id, [reads.TPS, reads.HISTORY], tr, DEFAULT_POINTS)
    tps, history = found.get(reads.TPS) or reads.Empty(), found.get(reads.HISTORY) or reads.Empty()
    known = [v for v in history.values if v is not None]
    return RunSummary(
        run=run, seconds=tr.seconds, tps=summarize(tps.values), max_history=max(known) if known else None,
        waits=reads.interval_waits(run.server_id, tr.start, tr.end)[:TOP_WAITS],
    )


def run_notes(runs: list[Run]) -> list[tuple[float, str]]:
    """Each run's annotations (its own, or its server's within its time), at their offset."""
    notes = []
    for run in runs:
        tr = run_range(run)
        found = Annotation.objects.filter(Q(run=run) | Q(server=run.server, at__gte=tr.start, at__lte=tr.end))
        notes += [((n.at - run.started_at).total_seconds(), f"{run.name}: {n.text}") for n in found.distinct()]
    return sorted(notes)
