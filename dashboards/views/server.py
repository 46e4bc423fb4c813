"""Per-server pages: stability, purge lag, top waits."""

from dataclasses import replace
from datetime import datetime, timedelta
from itertools import chain

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from collectors.monitor_enable import option_line
from collectors.sources.innodb_metrics import NAME as INNODB_METRICS
from collectors.status import source_error
from collectors.transactions import refused_of
from collectors.weakened import PURGE_METRICS_ENTRIES, PURGE_METRICS_ON
from dashboards import per_trx_reads, reads
from dashboards.analysis.levels import levels_of
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.points import ChartPoints
from dashboards.analysis.purge_growth import REACH, time_to_threshold
from dashboards.analysis.run_summary import Warmup
from dashboards.analysis.run_verdict import Verdict, judge_lines, moving_lines, table_threshold
from dashboards.analysis.stability import (
    Dip,
    Threshold,
    dip_threshold,
    line_dips,
    merge_close,
    no_line,
    per_level,
    summarize,
    with_outages,
)
from dashboards.analysis.statements import ORDERS
from dashboards.analysis.sweep_levels import Step, step_shifts
from dashboards.analysis.topwaits import CLIENT_EVENTS, Hidden, WaitDiff, WaitRow, diff_rows, is_client, shown
from dashboards.analysis.verdict_words import hidden_said, sweep_levels_said, verdict_text
from dashboards.analysis.wait_statements import METADATA_LOCKS, basis
from dashboards.basis_change import change_cause, counted_from
from dashboards.counter_holes import outages_not_polled, stall_causes, without_counter_holes
from dashboards.figures.purge import Reference, purge_figure
from dashboards.figures.stability import stability_figure
from dashboards.holder_panel import SERIES as HOLDER_SERIES
from dashboards.holder_panel import holders_context
from dashboards.host_panel import panel_disk, panel_of
from dashboards.links import chart_csv, dips_statements, link, topwaits_csv
from dashboards.marks import purge_references, server_marks
from dashboards.purge_reads import above_since
from dashboards.query_params import (
    client_param,
    conditions_param,
    dip_param,
    int_param,
    kept_params,
    second_interval,
    threshold_param,
)
from dashboards.range_run import judged_polls, run_of_range, run_warmup_polls, sliced, sweep_of_range
from dashboards.reports.summary import summarize_run
from dashboards.server_texts import BASIS_SERIES, families_off, health_sources, note_of, range_texts, waits_note
from dashboards.source_health import source_problem
from dashboards.timerange import TimeRange, read_points
from dashboards.unreachable import unreachable
from dashboards.views.common import condition_toggle, page_range, range_context
from dashboards.wait_answer import top_wait_statements
from servers.models import Run, Server

SYNCH = "wait/synch"  # the family of the lock waits (collectors.weakened.WAIT_FAMILIES)
DEFAULT_WAITS, DEFAULT_MUTEXES, MAX_WAITS = 8, 6, 20  # waits ranked on the stability chart
DEFAULT_TOP, MAX_TOP = 20, 200  # rows of the waits page's table
SOCKET_FAMILY = "wait/io"  # the family that times client time (wait/io/socket/sql/client_connection)
DEFAULT_THRESHOLD = 1_000_000  # history length a person would want to hear about
# What Test connection says for the same counters (collectors/weakened.py): 'purge%' turns on every purge_*
# counter the page draws by name, whatever module a version files it under.
ENABLE_PURGE_SQL = PURGE_METRICS_ON
ENABLE_PURGE_CONFIG = option_line(PURGE_METRICS_ENTRIES)  # the option file line Test connection gives


def stability_params(request: HttpRequest) -> tuple[int, float, list[str]]:
    """waits= and dip=, and a note for each value (w= too) the page could not use as given."""
    n_waits, waits_problem = int_param(request.GET, "waits", DEFAULT_WAITS, 1, MAX_WAITS, "the top {} waits")
    fraction, dip_problem = dip_param(request.GET)
    width_problem = read_points(request.GET)[1]
    return n_waits, fraction, [p for p in (width_problem, waits_problem, dip_problem) if p]


def stability(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    n_waits, fraction, notes = stability_params(request)
    conditions, conditions_problem = conditions_param(request.GET)
    client, client_problem = client_param(request.GET)
    notes += [p for p in (conditions_problem, client_problem) if p]
    disk = panel_disk(server, tr)
    tps, waits, mutexes, hidden, also = reads.stability_series(
        server.pk, tr, points, n_waits, DEFAULT_MUTEXES, reads.source_interval(server, reads.MUTEX_SOURCE), conditions,
        client, also=[reads.TPS, reads.HISTORY, *(disk.metrics if disk else [])])  # the verdict's and the host panel's
    # lines, and TPS's (read once: also says whether the server collects it, for the CSV link)
    tps = without_counter_holes(server.pk, tps)  # polled, but TPS's counter changed: no stall
    # One read for the mean and how TPS was counted: the same exact sums over the polls in the range.
    sums = reads.interval_sums(server.pk, BASIS_SERIES, tr.start, tr.end)
    texts = range_texts(server, sums)
    run = run_of_range(server.pk, tr)
    # A run's range (its link) shows the run's figures, as its report: the polls inside it after its warm-up; a
    # range's are the polls read in (start, end], the first after a run's start mostly measuring the time before.
    run_summary = summarize_run(run) if run else None
    summary = run_summary.tps if run_summary else summarize(tps.values, mean=reads.rate_in(sums, reads.TPS))
    # No transactions, or a commit or two (an autocommit load where only explicit ones are counted): no line to
    # judge. A run's are those its figures count (inside it, after its warm-up), as its report says them.
    counted = (run_summary.transactions or 0) if run_summary else sums.get(reads.TPS, (0, 0.0))[0]
    no_tps, few = no_line(summary, counted)
    threshold = dip_threshold(summary, fraction)
    bucket = reads.point_bucket(tr, points)
    # the buckets hide outages shorter than ~1.5 of them: read from the polls, for the list and the verdict
    outages = reads.poll_outages(server.pk, tr) if bucket is not None and threshold is not None else []
    outages = outages_not_polled(server.pk, outages) if outages else outages
    down = unreachable(server, tr)
    # the outage goes on, as far as now: a to ahead is no time it has lasted to yet
    ongoing = Dip(max(tps.ts[-1], down.since), min(tr.end, timezone.now()), None, stalled=True) if (
        down and tps.ts and down.since and down.since < tr.end) else None
    warm = run_warmup_polls(run, tps) if run else None
    # TPS counted one way, then another (a counter turned on): judged from the change, one meaning throughout.
    change = counted_from(server.pk, tr, points, sums) if texts.mixed else None
    since = change if not run else None
    judged = verdict_context(server.pk, tr, run, tps, waits, also.get(reads.HISTORY),
                             [*outages, (ongoing.start, ongoing.end)] if ongoing else outages, warm,
                             since.at if since else None, since.what if since else "")  # as listed
    # Where TPS changed level, each level's dips are judged against its own median, as the verdict judges them.
    threshold_drawn = table_threshold(tps, judged["verdict"], threshold, fraction) if threshold else threshold
    # A run's range: the polls its figures and verdict judge, not the one straddling its start nor its warm-up's.
    listed = judged_polls(warm[2], warm[0]) if warm else tps
    dips = listed_dips(listed, threshold_drawn, bucket, timedelta(seconds=2 * tr.seconds / points), outages, ongoing)
    marks = server_marks(server.pk, tr.start, tr.end)
    fig = stability_figure(tps, waits, mutexes, dips, marks, threshold_drawn, x_range=(tr.start, tr.end),
                           per_poll=reads.per_poll(tr, points),
                           empty_reason=down.text if down else None, tps_title=texts.title,
                           mutex_title=texts.mutex_title)
    host = panel_of(server, tr, points, disk, also, marks)
    metrics = [reads.TPS] + [reads.TIME_PREFIX + w for w, _ in waits] + [reads.MUTEX_PREFIX + m for m, _ in mutexes]
    return render(request, "dashboards/stability.html", {
        **range_context(request, tr), "server": server, "tab": "stability", "tps_definition": texts.definition,
        "tps_fix": texts.fix, "no_tps": no_tps, "counted": few,
        "waits_note": waits_note(server.pk, tr.start, tr.end), "waits_source": source_problem(server, "pfs_waits"),
        "tps_mixed": texts.mixed, "run": run, "judged_from": since,
        "tps_change_cause": change_cause(server.pk, tr, change, refused_of(health_sources(server).get("global_status")))
        if texts.mixed else "",
        "figures": {"stability-chart": fig, **host.figures}, "host_panel": host, "summary": summary,
        "dips": list(zip(dips, dips_statements(server.pk, [(d.start, d.end) for d in dips],
                                               server.statements_interval), strict=True)),
        "stall_causes": stall_causes(server.pk, dips),  # restart or FLUSH STATUS, where Uptime tells
        **judged, "fraction": fraction, "threshold": threshold, "n_waits": n_waits,
        "level_thresholds": per_level(threshold_drawn),
        "pixel": timedelta(seconds=tr.seconds / points),  # what a dip's times are good to
        "csv": chart_csv(server.pk, metrics, tr, points, collected=[*also, *metrics[1:]]),  # the others were read
        **condition_toggle(request, conditions), "hidden_conditions": hidden.events,
        "waits_read": bool(waits) or bool(hidden.events),  # none with performance_schema or pfs_waits off
        # A hidden condition wait the verdict would name with cond=1: the note must not call it idle.
        # The verdict's dips too: a lock's waiters are timed as they end, in the catch-up poll, which hides the
        # correlation of a wait that grew only in the dips.
        "hidden_moving": hidden_said(moving_lines(tps, hidden.lines, judged["verdict"].dips)) if hidden.lines else (),
        "down": down, "param_notes": notes,
        **client_toggle(request, client),
    })


def listed_dips(tps, threshold: Threshold | None, bucket: timedelta | None, gap: timedelta,
                outages: list[tuple[datetime, datetime]], ongoing: Dip | None) -> list[Dip]:
    """The dips table: the line's dips under the threshold, those less than `gap` apart as one, the outages of its
    polls (a rollup line's) and the outage going on (`ongoing`) as stalls."""
    dips = [] if threshold is None else merge_close(line_dips(tps, threshold, bucket), gap)
    dips = with_outages(dips, outages) if outages else dips
    return dips + ([ongoing] if ongoing else [])


def verdict_context(server_id: int, tr: TimeRange, run: Run | None, tps, waits, history,
                    outages: list[tuple[datetime, datetime]] | None = None,
                    warm: tuple[int, Warmup, ChartPoints] | None = None, since: datetime | None = None,
                    since_what: str = "") -> dict:
    """The verdict and its words, with the history length's line over the range at the chart's resolution; on a
    run's range (the Runs list's link), after the run's own warm-up. outages: those of the polls on a rollup
    range (reads.poll_outages), judged as the dips list has them. run: the run whose range this is (run_of_range);
    warm: its run_warmup_polls(run, tps), where the caller has them. since: TPS's points from then on only (where
    its counter changed: basis_change), since_what: what they count (CountedFrom.what), said where they are too
    few for a verdict."""
    warmup, run_warmup, judged = (warm or run_warmup_polls(run, tps)) if run else (None, None, tps)
    basis = None
    if since is not None:
        first = next((i for i, t in enumerate(judged.ts) if t >= since), len(judged.ts))
        basis = (since, since_what, sum(v is not None for v in judged.values[:first]))
        judged = sliced(judged, first, len(judged.ts))
    verdict: Verdict = judge_lines(judged, waits, history, warmup, reads.holders_in(server_id, tr.start, tr.end),
                                   outages or ())
    # A sweep's steps change the load by design: they stand for a drift or the level changes found across them,
    # never for a steady line, periodic dips or stalls (those are TPS's own, whatever the load did).
    sweep, steps = ("", []) if run or verdict.kind not in ("drifting", "shifted") else sweep_of_range(server_id, tr)
    shifts = step_shifts(tps.ts, tps.values, [Step(r.started_at, r.ended_at, timedelta(
        seconds=r.warmup_seconds)) for r in steps]) if steps else ()
    if not shifts:
        return {"verdict": verdict, "verdict_text": verdict_text(verdict, run_warmup, basis)}
    # The steps' levels, the stalls as the levels found them; a change found into or out of the sweep stays: one
    # by the middle of its first step or after the middle of its last (the changes between steps lie between).
    first, last = (r.started_at + (r.ended_at - r.started_at) / 2 for r in (steps[0], steps[-1]))
    outside = tuple(s for s in verdict.shifts if not first < s.at <= last)
    stalls = verdict.stalls if verdict.kind == "shifted" else judged_stalls(tps, verdict)
    verdict = replace(verdict, kind="shifted", shifts=tuple(sorted(outside + shifts, key=lambda s: s.at)), drift=None,
                      stalls=stalls, dips=(), dip_seconds=None)
    levels = sweep_levels_said(sweep, [r.concurrency for r in steps], shifts)
    return {"verdict": verdict, "verdict_text": {**verdict_text(verdict, run_warmup, basis), "levels": levels}}


def judged_stalls(tps, verdict: Verdict) -> tuple[tuple[datetime, datetime], ...]:
    """The stalls levels.levels_of() finds among the polls the verdict judged (after its warm-up)."""
    kept = [(t, v) for t, v in zip(tps.ts, tps.values, strict=True)
            if v is not None and verdict.warmup_end is not None and t >= verdict.warmup_end]
    return levels_of([t for t, _ in kept], [v for _, v in kept]).stalls if kept else ()


def purge(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    collected, missing = reads.purge_counters(server.pk)
    counters = [m for m in collected if m != reads.PURGE_DELAY]
    found = reads.series_map(server.pk, [reads.HISTORY, reads.TPS, *collected, *HOLDER_SERIES], tr, points)
    history, tps = found.get(reads.HISTORY) or reads.Empty(), found.get(reads.TPS) or reads.Empty()
    max_lag = reads.latest_value(server.pk, reads.MAX_PURGE_LAG)
    references = purge_references(server, max_lag)
    # The page's threshold: the server's own, else the lowest of its rules' (the built-in 1,000,000 among them).
    default = max_lag or min((r.value for r in references), default=DEFAULT_THRESHOLD)
    threshold, threshold_problem = threshold_param(request.GET, default)
    if all(r.value != threshold for r in references):
        references.append(Reference(f"threshold {threshold:,.0f} (this page's)", threshold))
    # The figures above the chart come from the polls: its points at long ranges are bucket mins and maxes.
    in_range = reads.polls_back(server.pk, reads.HISTORY, tr.start, tr.end)  # newest first, read as it goes
    newest = next(in_range, None)
    current = newest[1] if newest else None
    trend = reads.history_trend(server.pk, newest[0] if newest else tr.end)
    texts = range_texts(server, reads.interval_sums(server.pk, BASIS_SERIES, tr.start, tr.end))
    fig = purge_figure(
        history, tps, [(m.split(":", 1)[1], found[m]) for m in counters if m in found],
        found.get(reads.PURGE_DELAY), references, server_marks(server.pk, tr.start, tr.end), (tr.start, tr.end),
        texts.title,
    )
    holders = holders_context(server.pk, tr, points, history, found)
    unread = reads.holders_unread(health_sources(server))  # the health row unreachable() and range_texts() read
    verdict = reads.purge_verdict_at(server.pk, newest[0] if newest else None, current, trend, threshold, unread)
    return render(request, "dashboards/purge.html", {
        **range_context(request, tr), "server": server, "tab": "purge", **holders, "down": unreachable(server, tr),
        "tps_definition": texts.definition, "tps_fix": texts.fix,
        "figures": {"purge-chart": fig, **holders["holder_figure"]}, "max_lag": max_lag, "threshold": threshold,
        "current": current, "trend": trend, "reach_minutes": REACH.seconds // 60,
        "threshold_problem": threshold_problem,
        "above_since": above_since(server.pk, tr, threshold, chain([newest] if newest else [], in_range)),
        "eta": time_to_threshold(current, trend, threshold), "missing": missing, "enable_sql": ENABLE_PURGE_SQL,
        "enable_config": ENABLE_PURGE_CONFIG, "enable_entries": ",".join(PURGE_METRICS_ENTRIES),
        "collected_before": any(m in collected for m in missing),
        # INNODB_METRICS unread (a missing PROCESS, no such table): enabling the counters would change nothing
        "metrics_unread": source_error(server.name, INNODB_METRICS, health_sources(server).get(INNODB_METRICS),
                                       named=False),
        "verdict": verdict, "holders_unread": unread,
        "csv": chart_csv(server.pk, [reads.HISTORY, reads.TPS, *collected], tr, points),
    })


def waits(request: HttpRequest, server_id: int) -> HttpResponse:
    """Top waits over the range; with from2/to2, a second interval side by side."""
    server = get_object_or_404(Server, pk=server_id)
    tr, _ = page_range(request)
    limit, limit_problem = int_param(request.GET, "top", DEFAULT_TOP, 5, MAX_TOP, "the top {} waits")
    conditions, conditions_problem = conditions_param(request.GET)
    client, client_problem = client_param(request.GET)
    waits_a, sums_a = per_trx_reads.interval_times(server.pk, tr.start, tr.end)
    rows_a = shown_waits(waits_a, conditions, client)[0]
    second, problem = second_interval(request.GET, tr.end)
    off = families_off(server.pk, tr.start, tr.end)
    per_trx_a = per_trx_reads.per_transaction_from(server.pk, tr.start, tr.end, sums_a, rows_a)
    texts = range_texts(server, sums_a)  # the TPS counters' sums came with the waits
    compared = compared_waits(server.pk, tr, second, rows_a, per_trx_a, (conditions, client), limit) if second else {}
    events = [r.event for r in rows_a[:limit]] + [d.event for d in compared.get("diffs", [])]
    rows_a, hidden = shown_waits(counted_waits(server.pk, tr, waits_a, events), conditions, client)
    links = statement_links(server.pk, tr, rows_a[:limit])
    if compared:  # the first interval's rows compared, now with their counts
        by_event = {r.event: r for r in rows_a}
        compared["diffs"] = [replace(d, a=by_event.get(d.event)) for d in compared["diffs"]]
        compared["diff_links"] = compared_links(server.pk, tr, compared["tr_b"], compared["diffs"])
    return render(request, "dashboards/waits.html", {
        **range_context(request, tr), "server": server, "tab": "waits", "rows": rows_a[:limit],
        "statement_links": links,
        "answer": top_wait_statements(server.pk, server.flavor, tr, *links[0][:3]) if links else None,
        "uncounted_locks": uncounted_locks(server.pk, tr) if SYNCH in off else "",
        "limit": limit, "csv": topwaits_csv(server.pk, tr, conditions=conditions, client=client),
        "from2_value": request.GET.get("from2", ""), "to2_value": request.GET.get("to2", ""),
        **condition_toggle(request, conditions), "hidden": hidden, "second_problem": problem,
        "per_trx": per_trx_a, "tps_definition": texts.definition, "tps_fix": texts.fix,
        "param_notes": [p for p in (limit_problem, conditions_problem, client_problem) if p],
        **client_toggle(request, client),
        "waits_note": note_of(off), "waits_source": source_problem(server, "pfs_waits"),
        "client_uncounted": SOCKET_FAMILY in off, "waits_recorded": bool(waits_a), **compared,
    })


def uncounted_locks(server_id: int, tr: TimeRange) -> str:
    """The Statements tab by lock time, for the metadata-lock waits the wait/synch instruments off leave uncounted."""
    return link("dashboards:statements", server_id, query={**tr.params(), "order": "lock", "wait": METADATA_LOCKS})


def statement_links(server_id: int, tr: TimeRange, rows: list[WaitRow]) -> list[tuple[str, str, str, WaitRow]]:
    """Each wait shown: its event, the name of the column it accumulates in (dashboards.analysis.wait_statements),
    the Statements tab over the same range ranked by that column, and its row."""
    linked = []
    for row in rows:
        order = basis(row.event).order
        href = link("dashboards:statements", server_id, query={**tr.params(), "order": order, "wait": row.event})
        linked.append((row.event, ORDERS[order][0], href, row))
    return linked


def compared_links(server_id: int, tr: TimeRange, tr_b: TimeRange,
                   diffs: list[WaitDiff]) -> list[tuple[WaitDiff, str, str, str]]:
    """Each wait compared, the name of the column it accumulates in, and the Statements tab over A and over B
    ranked by that column (as statement_links does for the waits of A alone)."""
    linked = []
    for diff in diffs:
        order = basis(diff.event).order
        a, b = (link("dashboards:statements", server_id, query={**r.params(), "order": order, "wait": diff.event})
                for r in (tr, tr_b))
        linked.append((diff, ORDERS[order][0], a, b))
    return linked


def counted_waits(server_id: int, tr: TimeRange, waits: list[WaitRow], events: list[str]) -> list[WaitRow]:
    """The waits with the counts the page shows: the events listed (the rows shown and compared) and the client
    time (left out and said apart with its count); the other rows' counts, shown nowhere, are 0."""
    clients = [r.event for r in waits if is_client(r.event)]
    return per_trx_reads.counted(server_id, tr.start, tr.end, waits, events + clients)


def compared_waits(server_id: int, tr: TimeRange, tr_b: TimeRange, rows_a: list[WaitRow], per_trx_a: PerTransaction,
                   ranked: tuple[bool, bool], limit: int) -> dict:
    """The second interval's part of the page: its waits against the first's (rows_a, whose counts the caller
    reads with the rows it shows), with the counts of its own rows compared."""
    conditions, client = ranked
    waits_b, sums_b = per_trx_reads.interval_times(server_id, tr_b.start, tr_b.end)
    rows_b = shown_waits(waits_b, conditions, client)[0]
    per_trx_b = per_trx_reads.per_transaction_from(server_id, tr_b.start, tr_b.end, sums_b, rows_b)
    spans = (reads.interval_span(server_id, tr.start, tr.end, per_trx_a),
             reads.interval_span(server_id, tr_b.start, tr_b.end, per_trx_b))
    diffs = diff_rows(rows_a, rows_b, limit, *spans)
    counted = per_trx_reads.counted(server_id, tr_b.start, tr_b.end, rows_b, [d.event for d in diffs])
    by_event = {r.event: r for r in counted}
    return {"tr_b": tr_b, "diffs": [replace(d, b=by_event.get(d.event)) for d in diffs], "spans": spans,
            "per_trx_b": per_trx_b, "diff_csv": topwaits_csv(server_id, tr, tr_b, conditions=conditions, client=client)}


def client_toggle(request: HttpRequest, client: bool) -> dict:
    """The "rank client time" checkbox (?client=1): a form that keeps every other parameter."""
    keep = kept_params(request.GET, ("client",))
    return {"client": client, "client_keep": keep, "client_events": sorted(CLIENT_EVENTS)}


def shown_waits(rows: list[WaitRow], conditions: bool, client: bool = False) -> tuple[list[WaitRow], Hidden]:
    """The rows ranked: condition waits and client time left out unless toggled in, and what was left out."""
    return shown(rows, conditions, client)
