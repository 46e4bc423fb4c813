"""Compare runs "apples to apples": each run's lines aligned at its own start."""

from dataclasses import dataclass, field, replace
from datetime import UTC
from urllib.parse import urlencode

from django.db.models import Q
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from dashboards import host_series, reads
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.step_window import Window, run_window
from dashboards.analysis.topwaits import CONDITION_PARAM, WaitRow, include_conditions, shown
from dashboards.figures.compare import AlignedRun, compare_figure
from dashboards.reports.ab_groups import Groups, pick_groups, verdict
from dashboards.reports.summary import MAX_WARMUP, RunSummary, summarize_run, warmup_param
from dashboards.timerange import DEFAULT_POINTS, TimeRange, max_points
from dashboards.url_ids import parse_id
from dashboards.views.common import TPS_DEFINITION, TpsBasis, condition_toggle, tps_bases
from servers.models import Annotation, Run

TOP_WAITS = 5
TOP_STATEMENTS, CHANGED_STATEMENTS = 5, 10


@dataclass
class RunRow:
    """A run's line in the per-run table: the report's exact summary and its top waits."""

    summary: RunSummary
    waits: list[WaitRow]
    per_trx: PerTransaction | None = None  # condition waits left out, host CPU from node_exporter
    basis: TpsBasis | None = None  # what its server's TPS counts
    statements: list = field(default_factory=list)  # its top statements by time (reads.run_top_statements)


def run_ids(request: HttpRequest) -> tuple[list[int], list[str]]:
    """?runs=1,2 or ?runs=1&runs=2, in the order given, and what is wrong with each value that is not an id."""
    raw = ",".join(request.GET.getlist("runs"))
    parts = [p.strip() for p in raw.split(",") if p.strip()]  # runs=1,,2 and a trailing comma are no mistake
    ids = [parse_id(p) for p in parts]
    bad = [f"{p!r} is not a run id" for p, i in zip(parts, ids, strict=True) if i is None]
    return list(dict.fromkeys(i for i in ids if i is not None)), bad


def picked_runs(request: HttpRequest) -> tuple[list[int], list[Run], str | None]:
    """The ids asked for, the runs among them that exist, and a note naming the rest and what is compared instead."""
    ids, bad = run_ids(request)
    by_id = {r.pk: r for r in Run.objects.filter(pk__in=ids).select_related("server")}
    runs = [by_id[i] for i in ids if i in by_id]
    bad += [f"there is no run {i}" for i in ids if i not in by_id]
    if not bad:
        return ids, runs, None
    kept = ", ".join(str(r.pk) for r in runs)
    shown = f"comparing only {'runs' if len(runs) > 1 else 'run'} {kept}" if runs else "no run left to compare"
    return ids, runs, f"runs: {'; '.join(bad)}: {shown}."


def warmup_problem(get: QueryDict, warmup: int | None) -> str | None:
    """What is wrong with ?warmup= when warmup_param could not use it (the report and CSV read it the same way)."""
    raw = (get.get("warmup") or "").strip()
    if not raw or warmup is not None:
        return None
    return (f"warmup={raw!r} is not a whole number of seconds from 0 to {MAX_WARMUP:,}:"
            " trimming each run's own warm-up instead.")


def run_range(run: Run, warmup: int | None = None) -> TimeRange:
    return TimeRange(*run_window(run, warmup))


def grouped_runs(request: HttpRequest) -> tuple[Groups | None, list[int], list[Run], str | None]:
    """A/B groups when the address names them (their runs are the ones compared), else the runs picked."""
    groups = pick_groups(request.GET)
    if groups is None:
        return None, *picked_runs(request)
    note = f"A/B: {'; '.join(groups.problems)}." if groups.problems else None
    return groups, [run.pk for run in groups.runs], groups.runs, note


def compare(request: HttpRequest) -> HttpResponse:
    groups, ids, runs, runs_problem = grouped_runs(request)
    points = max_points(request.GET) if "w" in request.GET else DEFAULT_POINTS
    warmup, conditions = warmup_param(request.GET), include_conditions(request.GET)
    notes = [p for p in (runs_problem, warmup_problem(request.GET, warmup)) if p]
    bases = tps_bases(list({run.server_id for run in runs}))
    found = {run.pk: reads.run_statements(run, warmup) for run in runs}  # the tops and the changes read them
    summaries = [replace(run_row(run, warmup, conditions, found[run.pk]), basis=bases.get(run.server_id))
                 for run in runs]
    wait = request.GET.get("wait") or next((s.waits[0].event for s in summaries if s.waits), "")
    aligned = [align(run, wait, points, warmup) for run in runs]
    events = sorted({w.event for s in summaries for w in s.waits})
    return render(request, "dashboards/compare.html", {
        "runs": runs, "summaries": summaries, "wait": wait, "events": events, "top_waits": TOP_WAITS,
        "all_runs": Run.objects.select_related("server")[:200], "ids": ids,
        "figures": {"compare-chart": compare_figure(aligned, wait, run_notes(runs, warmup))},
        "tps_definition": TPS_DEFINITION, "warmup": warmup, **condition_toggle(request, conditions),
        "param_notes": notes, "groups": groups, "top_statements": TOP_STATEMENTS,
        "ab": verdict(groups, {row.summary.run.pk: row.summary.tps.mean for row in summaries}) if groups else None,
        **reads.statements_changed_context(runs, CHANGED_STATEMENTS, warmup, found),
        "csv": "/export/compare.csv?" + compare_query(runs, warmup, conditions),
        "report": "/reports/compare/?" + compare_query(runs, warmup, conditions),
    })


def compare_query(runs: list[Run], warmup: int | None, conditions: bool) -> str:
    """runs=.., with the page's warm-up trim and condition toggle carried to the report and CSV."""
    query = {"runs": ",".join(str(r.pk) for r in runs)}
    if warmup is not None:
        query["warmup"] = str(warmup)
    if conditions:
        query[CONDITION_PARAM] = "1"
    return urlencode(query)


def align(run: Run, wait: str, points: int, warmup: int | None = None) -> AlignedRun:
    """The run after its warm-up, aligned at the end of the warm-up."""
    tr = run_range(run, warmup)
    metrics = [reads.TPS, reads.HISTORY] + ([reads.TIME_PREFIX + wait] if wait else [])
    found = reads.series_map(run.server_id, metrics, tr, points)
    return AlignedRun(
        # Two runs of one name (the same test repeated) told apart by when they started.
        f"{run.name} ({run.server.name}, {run.started_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC)", tr.start,
        found.get(reads.TPS) or reads.Empty(), found.get(reads.HISTORY) or reads.Empty(),
        found.get(reads.TIME_PREFIX + wait) or reads.Empty(), tr.seconds,
    )


def run_row(run: Run, warmup: int | None = None, conditions: bool = False,
            statements: reads.StatementsRange | None = None) -> RunRow:
    """The same summary as the compare report and CSV (every sample, not the chart's points).

    Condition waits are left out of the top waits unless asked for, as on the stability page, and client
    time always; waits per transaction leave both out always (beside host CPU per transaction).
    """
    summary = summarize_run(run, warmup)
    waits, per_trx = host_series.run_figures(run.server_id, Window(summary.start, summary.end))
    return RunRow(summary, shown(waits, conditions)[0][:TOP_WAITS], per_trx,
                  statements=reads.run_top_statements(run, TOP_STATEMENTS, warmup, statements))


def run_notes(runs: list[Run], warmup: int | None = None) -> list[tuple[float, str]]:
    """Each run's annotations (its own, or its server's within its time), at their offset from the aligned start."""
    notes = []
    for run in runs:
        tr = run_range(run, warmup)
        found = Annotation.objects.filter(Q(run=run) | Q(server=run.server, at__gte=tr.start, at__lte=tr.end))
        notes += [((n.at - tr.start).total_seconds(), f"{run.name}: {n.text}") for n in found.distinct()]
    return sorted(notes)
