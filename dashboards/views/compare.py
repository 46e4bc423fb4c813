"""Compare runs "apples to apples": each run's lines aligned at its own start."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards import reads
from dashboards.analysis.topwaits import CONDITION_PARAM
from dashboards.figures.compare import compare_figure
from dashboards.links import link
from dashboards.query_params import conditions_param, listed_ids, wait_param, warmup_param, warmup_problem
from dashboards.reports.ab_groups import Groups, pick_groups, verdict
from dashboards.reports.compare_rows import TOP_STATEMENTS, TOP_WAITS, align, run_notes, run_row
from dashboards.reports.summary import WINDOW_FIGURES, summarize_run
from dashboards.timerange import DEFAULT_POINTS, max_points
from dashboards.views.common import TPS_DEFINITION, condition_toggle
from servers.models import Run

CHANGED_STATEMENTS = 10


def picked_runs(request: HttpRequest) -> tuple[list[int], list[Run], str | None]:
    """The ids asked for, the runs among them that exist, and a note naming the rest and what is compared instead."""
    ids, bad_parts = listed_ids(request.GET, "runs")
    ids, bad = list(dict.fromkeys(ids)), [f"{p!r} is not a run id" for p in bad_parts]
    by_id = {r.pk: r for r in Run.objects.filter(pk__in=ids).select_related("server")}
    runs = [by_id[i] for i in ids if i in by_id]
    bad += [f"there is no run {i}" for i in ids if i not in by_id]
    if not bad:
        return ids, runs, None
    kept = ", ".join(str(r.pk) for r in runs)
    shown = f"comparing only {'runs' if len(runs) > 1 else 'run'} {kept}" if runs else "no run left to compare"
    return ids, runs, f"runs: {'; '.join(bad)}: {shown}."


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
    warmup, (conditions, conditions_problem) = warmup_param(request.GET), conditions_param(request.GET)
    notes = [p for p in (runs_problem, warmup_problem(request.GET, warmup), conditions_problem) if p]
    # Each run's warm-up (the page's trim, else the run's own, else found from its TPS) as its summary's, its
    # polls read once for its row.
    trims = {run.pk: summarize_run(run, warmup, also=WINDOW_FIGURES) for run in runs}
    warmups = {pk: s.warmup for pk, s in trims.items()}
    found = {run.pk: reads.run_statements(run, warmups[run.pk], trims[run.pk].polls)
             for run in runs}  # the tops and the changes read them
    summaries = [run_row(trims[run.pk], conditions, found[run.pk], warmup is not None) for run in runs]
    wait, wait_problem = wait_param(request.GET)
    notes += [wait_problem] if wait_problem else []
    wait = wait or next((s.waits[0].event for s in summaries if s.waits), "")
    aligned = [align(run, wait, points, warmups[run.pk], trims[run.pk].polls) for run in runs]
    events = sorted({w.event for s in summaries for w in s.waits})
    return render(request, "dashboards/compare.html", {
        "runs": runs, "summaries": summaries, "wait": wait, "events": events, "top_waits": TOP_WAITS,
        "all_runs": Run.objects.select_related("server")[:200], "ids": ids,
        "figures": {"compare-chart": compare_figure(aligned, wait, run_notes(runs, warmups))},
        "tps_definition": TPS_DEFINITION, "warmup": warmup, **condition_toggle(request, conditions),
        "param_notes": notes, "groups": groups, "top_statements": TOP_STATEMENTS,
        "ab": verdict(groups, {row.summary.run.pk: row.summary for row in summaries}) if groups else None,
        **reads.statements_changed_context(runs, CHANGED_STATEMENTS, warmup, found),
        "csv": link("export-compare", query=compare_query(runs, warmup, conditions)),
        "report": link("compare-report", query=compare_query(runs, warmup, conditions)),
    })


def compare_query(runs: list[Run], warmup: int | None, conditions: bool) -> dict[str, str]:
    """runs=.., with the page's warm-up trim and condition toggle carried to the report and CSV."""
    query = {"runs": ",".join(str(r.pk) for r in runs)}
    if warmup is not None:
        query["warmup"] = str(warmup)
    if conditions:
        query[CONDITION_PARAM] = "1"
    return query
