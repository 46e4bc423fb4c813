"""Compare runs "apples to apples": each run's lines aligned at its own start."""

from dataclasses import dataclass

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards import host_series, reads
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.topwaits import WaitRow, without_conditions
from dashboards.figures.compare import AlignedRun, compare_figure
from dashboards.reports.summary import RunSummary, run_window, summarize_run
from dashboards.timerange import DEFAULT_POINTS, TimeRange, max_points
from dashboards.views.common import TPS_DEFINITION
from monitor.models import Annotation, Run

TOP_WAITS = 5


@dataclass
class RunRow:
    """A run's line in the per-run table: the report's exact summary and its top waits."""

    summary: RunSummary
    waits: list[WaitRow]
    per_trx: PerTransaction | None = None  # condition waits left out, host CPU from node_exporter


def run_ids(request: HttpRequest) -> list[int]:
    """?runs=1,2 or ?runs=1&runs=2, in the order given."""
    raw = ",".join(request.GET.getlist("runs"))
    return list(dict.fromkeys(int(v) for v in raw.split(",") if v.strip().isdigit()))


def run_range(run: Run) -> TimeRange:
    return TimeRange(*run_window(run))


def compare(request: HttpRequest) -> HttpResponse:
    ids = run_ids(request)
    by_id = {r.pk: r for r in Run.objects.filter(pk__in=ids).select_related("server")}
    runs = [by_id[i] for i in ids if i in by_id]
    points = max_points(request.GET) if "w" in request.GET else DEFAULT_POINTS
    summaries = [run_row(run) for run in runs]
    wait = request.GET.get("wait") or next((s.waits[0].event for s in summaries if s.waits), "")
    aligned = [align(run, wait, points) for run in runs]
    events = sorted({w.event for s in summaries for w in s.waits})
    return render(request, "dashboards/compare.html", {
        "runs": runs, "summaries": summaries, "wait": wait, "events": events, "top_waits": TOP_WAITS,
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


def run_row(run: Run) -> RunRow:
    """The same summary as the compare report and CSV (every sample, not the chart's points)."""
    summary = summarize_run(run)
    waits = reads.interval_waits(run.server_id, summary.start, summary.end)
    per_trx = host_series.per_transaction_of(run.server_id, summary.start, summary.end, without_conditions(waits)[0])
    return RunRow(summary, waits[:TOP_WAITS], per_trx)


def run_notes(runs: list[Run]) -> list[tuple[float, str]]:
    """Each run's annotations (its own, or its server's within its time), at their offset."""
    notes = []
    for run in runs:
        tr = run_range(run)
        found = Annotation.objects.filter(Q(run=run) | Q(server=run.server, at__gte=tr.start, at__lte=tr.end))
        notes += [((n.at - run.started_at).total_seconds(), f"{run.name}: {n.text}") for n in found.distinct()]
    return sorted(notes)
