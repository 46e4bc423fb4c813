"""Printable reports: one run (settings, summary, charts, top waits) and a comparison of runs."""


from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from dashboards import per_trx_reads, reads
from dashboards.analysis.own_load import others_ran, others_sentence, others_share
from dashboards.analysis.run_summary import Warmup, ratio
from dashboards.analysis.settings_diff import Change, changes
from dashboards.analysis.stability import DEFAULT_DIP_FRACTION, dip_threshold, no_line, per_level
from dashboards.analysis.statements import rank
from dashboards.analysis.step_window import Window, run_window
from dashboards.analysis.verdict_words import verdict_text
from dashboards.counter_holes import stall_causes
from dashboards.export import params
from dashboards.export.csv_safe import iso_utc
from dashboards.links import exact_param, link, topwaits_csv
from dashboards.own_load_reads import own_load
from dashboards.prepared_note import unseen_prepared
from dashboards.query_params import conditions_param, monitoring_param, warmup_param
from dashboards.reports.charts import chart_metrics, purge_chart, run_dip_threshold, stability_chart
from dashboards.reports.run_links import series_range
from dashboards.reports.settings_diff import previous_run, show, snapshot
from dashboards.reports.summary import WINDOW_FIGURES, RunSummary, basis_sums, summarize_run, warmup_overrun
from dashboards.server_texts import range_texts, waits_note
from dashboards.source_health import source_problem
from dashboards.timerange import TimeRange, iso_param, up_to_second
from dashboards.views.common import TPS_DEFINITION, condition_toggle, monitoring_toggle
from dashboards.views.scalability import study_context
from dashboards.window_reads import sums_from
from servers.models import Run
from store import query

TOP_WAITS = 15
TOP_STATEMENTS, CHANGED_STATEMENTS = 10, 10


def range_query(server: str, start, end, **extra) -> dict:
    return {"server": server, "from": iso_utc(start), "to": iso_utc(end), **extra}


def settings_context(run: Run, window: Window) -> dict:
    start, end = window
    settings = snapshot(run.server_id, start, end)
    previous = previous_run(run)
    before = snapshot(previous.server_id, *run_window(previous)) if previous else []
    return {
        "settings": [{"name": s.name, "value": show(s.value), "changed": s.changed_during_run} for s in settings],
        "previous": previous,
        "changes": [change_cells(c) for c in changes(before, settings)] if previous else [],
        "max_purge_lag": next((s.value for s in settings if s.name == "innodb_max_purge_lag"), None),
    }


def change_cells(change: Change) -> dict:
    return {"name": change.name, "before": show(change.before), "after": show(change.after)}


def others_context(run: Run, summary: RunSummary) -> dict:
    """Where the server counted more than the load could have run over the seconds its polls cover, by the
    threshold: other clients ran the rest."""
    own = own_load(run, summary.warmup)
    share = others_share(summary.tps.mean, own.tps if own else None)
    if not own or not others_ran(share, summary.covered, summary.seconds):
        return {}
    return {"others": others_sentence(share, summary.covered, summary.seconds), "own_tps": own.tps}


@require_GET
def run_report(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("server"), pk=run_id)
    summary = summarize_run(run, also=WINDOW_FIGURES)  # the window's polls read once for its figures
    (conditions, conditions_problem), polls = conditions_param(request.GET), summary.polls
    monitoring, monitoring_problem = monitoring_param(request.GET)
    window = Window(summary.start, summary.end)
    waits, hidden = per_trx_reads.run_waits(run.server_id, window, polls, conditions, TOP_WAITS)
    context = settings_context(run, window)
    found = reads.run_statements(run, summary.warmup, polls)  # its top statements and what they leave out
    # None wholly inside a short run (its reads straddle its ends): the reads that cover it, said so on the page.
    wider = None if found.reads else reads.statements_covering(run.server_id, window.start, window.end,
                                                               run.server.statements_interval)
    found = wider if wider and wider.reads else found
    texts = range_texts(run.server, basis_sums(summary))
    stability, dips, verdict = stability_chart(summary, texts.title, texts.mutex_title)
    threshold = run_dip_threshold(summary, verdict)  # one a level where TPS changed level
    span = range_query(run.server.name, *series_range(run.server, window, polls))  # the polls the figures use
    collected = reads.purge_counters(run.server_id)[0]  # for the purge chart and its CSV link
    # only what the server collected: the export refuses a name it never did (history off, no PROCESS)
    metrics = ",".join(query.collected(run.server_id, ["qps", "Threads_running", *chart_metrics(collected)]))
    no_tps, counted = no_line(summary.tps, summary.transactions or 0)  # none, or a commit or two: as a range's
    context.update(
        run=run, summary=summary, waits=waits[:TOP_WAITS], waits_total=len(waits), hidden=hidden,
        not_started=run.ended_at is None and run.started_at >= window.end,  # marked ahead: its window ends at its start
        **condition_toggle(request, conditions), conditions_problem=conditions_problem,
        **others_context(run, summary),
        dips=dips, stall_causes=stall_causes(run.server_id, dips),  # restart or FLUSH STATUS, where Uptime tells
        dip_threshold=dip_threshold(summary.tps), dip_levels=per_level(threshold), verdict=verdict,
        warmup_found=summary.warmup_found,
        verdict_text=verdict_text(verdict, Warmup(summary.warmup, summary.warmup_found)),
        warmup_note=warmup_overrun(summary),  # a warm-up that leaves nothing of the run: why every figure is empty
        figures={"chart-stability": stability,
                 "chart-purge": purge_chart(summary, context["max_purge_lag"], texts.title, collected)},
        series_csv=link("export-csv", query={**span, "metrics": metrics}) if metrics else "",
        series_full_csv=link("export-csv", query={**span, "metrics": metrics, "full": 1}) if metrics else "",
        # The run's range (the stability page then judges it with the run's warm-up), its last poll included;
        # from its exact start: cut to the second, it may take in a poll read just before the run began.
        range_params={"from": exact_param(run.started_at), "to": iso_param(up_to_second(summary.end))},
        tps_definition=texts.definition, tps_fix=texts.fix, no_tps=no_tps, counted=counted,
        dip_fraction=DEFAULT_DIP_FRACTION,
        top_statements=reads.run_top_statements(run, TOP_STATEMENTS, summary.warmup, found, monitoring),
        statements_monitoring=rank(found.rows, monitoring=monitoring).monitoring, monitoring_problem=monitoring_problem,
        **monitoring_toggle(request, monitoring),
        prepared_unseen=unseen_prepared(run.server.flavor, found),
        statements_covering=found.covered if found is wider else None,
        statements_covering_link=link("dashboards:statements", run.server_id, query={
            "from": exact_param(found.covered[0]), "to": exact_param(found.covered[1])})
        if found is wider and found.covered else "",
        # why a section may be empty (performance_schema OFF on a server at its defaults), as the server's pages say
        waits_source=source_problem(run.server, "pfs_waits"),
        waits_note=waits_note(run.server_id, window.start, window.end),  # wait instruments off during the run
        statements_source=source_problem(run.server, "statements"),
        statements_csv=link("export-statements", query={"runs": run.pk, **({"monitoring": 1} if monitoring else {})}),
        # the interval export ((from, to]) from just before the first poll inside the run, ranked as the table
        waits_csv=topwaits_csv(run.server_id, TimeRange(sums_from(run.server_id, window, polls), window.end),
                               conditions=conditions, client=False),
    )
    return render(request, "reports/run.html", context)


@require_GET
def compare_report(request: HttpRequest) -> HttpResponse:
    """/reports/compare/?runs=1,2,3: TPS per run and its ratio to the first run."""
    picker = {"runs": Run.objects.select_related("server")[:200]}
    if not request.GET.get("runs"):
        return render(request, "reports/compare.html", {**picker, "pick": True})
    try:
        runs = params.find_runs(request.GET.getlist("runs"))
    except params.ExportError as error:
        return render(request, "reports/compare.html", {**picker, "pick": True, "error": str(error)}, status=400)
    if len(request.GET.getlist("runs")) > 1:
        # Ticked in a list (runs=3&runs=5): oldest first, the baseline. A typed runs=5,3 keeps its order.
        runs.sort(key=lambda r: r.started_at)
    warmup = warmup_param(request.GET)
    summaries = [summarize_run(run, warmup) for run in runs]
    reference = summaries[0]
    base = snapshot(reference.run.server_id, reference.start, reference.end)
    rows = [{
        "summary": s, "ratio": ratio(s.tps.mean, reference.tps.mean),
        "warmup_note": warmup_overrun(s, warmup is not None),
        "changes": [change_cells(c) for c in changes(base, snapshot(s.run.server_id, s.start, s.end))]
        if s is not reference else [],
    } for s in summaries]
    ids = ",".join(str(r.pk) for r in runs)
    return render(request, "reports/compare.html", {
        "rows": rows, "ids": ids, "warmup": warmup,
        "compare_csv": link("export-compare", query={"runs": ids} | ({} if warmup is None else {"warmup": warmup})),
        "tps_definition": TPS_DEFINITION, **reads.statements_changed_context(runs, CHANGED_STATEMENTS, warmup),
    })


@require_GET
def scalability_report(request: HttpRequest) -> HttpResponse:
    """/reports/scalability/?sweep=A&sweep=B: the Scalability page on paper."""
    context, status = study_context(request)
    return render(request, "reports/scalability.html", context, status=status)
