"""Per-server pages: stability, purge lag, top waits."""

from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from dashboards import host_series, reads
from dashboards.analysis.purge_growth import growth_per_second, last_value, time_to_threshold
from dashboards.analysis.stability import DEFAULT_DIP_FRACTION, dip_threshold, find_dips, merge_close, summarize
from dashboards.analysis.topwaits import Hidden, WaitRow, diff_rows, include_conditions, without_conditions
from dashboards.figures.purge import purge_figure
from dashboards.figures.stability import stability_figure
from dashboards.marks import server_marks
from dashboards.timerange import from_query, parse_time_lenient
from dashboards.views.common import chart_csv, condition_toggle, page_range, range_context, topwaits_csv, tps_definition
from dashboards.views.holders import holders_context
from dashboards.views.host import host_panel
from monitor.models import Server

DEFAULT_WAITS, DEFAULT_MUTEXES = 8, 6
DEFAULT_THRESHOLD = 1_000_000  # history length a person would want to hear about
GROWTH_WINDOW = timedelta(minutes=30)
ENABLE_PURGE_SQL = "SET GLOBAL innodb_monitor_enable = 'module_purge';"


def int_param(request: HttpRequest, name: str, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(request.GET.get(name, default))))
    except ValueError:
        return default


def float_param(request: HttpRequest, name: str, default: float) -> float:
    try:
        return float(request.GET.get(name, default))
    except ValueError:
        return default


def stability(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    n_waits = int_param(request, "waits", DEFAULT_WAITS, 1, 20)
    fraction = max(0.05, min(0.95, float_param(request, "dip", DEFAULT_DIP_FRACTION)))
    conditions = include_conditions(request.GET)
    tps, waits, mutexes, hidden = reads.stability_series(
        server.pk, tr, points, n_waits, DEFAULT_MUTEXES, reads.source_interval(server, reads.MUTEX_SOURCE), conditions)
    summary = summarize(tps.values)
    threshold = dip_threshold(summary, fraction)
    dips = [] if threshold is None else merge_close(
        find_dips(tps.ts, tps.values, threshold), timedelta(seconds=2 * tr.seconds / points))
    marks = server_marks(server.pk, tr.start, tr.end)
    fig = stability_figure(tps, waits, mutexes, dips, marks, threshold,
                           x_range=(tr.start, tr.end) if beyond(mutexes, tr) else None)
    host = host_panel(server, tr, points, marks)
    metrics = [reads.TPS] + [reads.TIME_PREFIX + w for w, _ in waits] + [reads.MUTEX_PREFIX + m for m, _ in mutexes]
    return render(request, "dashboards/stability.html", {
        **range_context(request, tr), "server": server, "tab": "stability", "tps_definition": tps_definition(server),
        "figures": {"stability-chart": fig, **host.figures}, "host_panel": host, "summary": summary, "dips": dips,
        "fraction": fraction, "threshold": threshold, "n_waits": n_waits,
        "csv": chart_csv(server.pk, metrics, tr, points),
        **condition_toggle(request, conditions), "hidden_conditions": hidden,
    })



def beyond(lines: list, tr) -> bool:
    """Whether some line has points outside the range (read wider): then the axis is pinned to it."""
    return any(p.ts and (p.ts[0] < tr.start or p.ts[-1] > tr.end) for _, p in lines)


def purge(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    collected, missing = reads.purge_counters(server.pk)
    counters = [m for m in collected if m != reads.PURGE_DELAY]
    found = reads.series_map(server.pk, [reads.HISTORY, reads.TPS, *collected], tr, points)
    history, tps = found.get(reads.HISTORY) or reads.Empty(), found.get(reads.TPS) or reads.Empty()
    max_lag = reads.latest_value(server.pk, reads.MAX_PURGE_LAG)
    threshold = float_param(request, "threshold", max_lag or DEFAULT_THRESHOLD)
    slope = growth_per_second(history.ts, history.values, GROWTH_WINDOW)
    current = last_value(history.values)
    fig = purge_figure(
        history, tps, [(m.split(":", 1)[1], found[m]) for m in counters if m in found],
        found.get(reads.PURGE_DELAY), max_lag, threshold, server_marks(server.pk, tr.start, tr.end),
    )
    holders = holders_context(server.pk, tr, points, history)
    return render(request, "dashboards/purge.html", {
        **range_context(request, tr), "server": server, "tab": "purge", **holders,
        "tps_definition": tps_definition(server),
        "figures": {"purge-chart": fig, **holders["holder_figure"]}, "max_lag": max_lag, "threshold": threshold,
        "current": current, "per_minute": None if slope is None else slope * 60,
        "eta": time_to_threshold(current, slope, threshold), "missing": missing,
        "enable_sql": ENABLE_PURGE_SQL, "growth_window": int(GROWTH_WINDOW.total_seconds() // 60),
        "csv": chart_csv(server.pk, [reads.HISTORY, reads.TPS, *collected], tr, points),
    })


def waits(request: HttpRequest, server_id: int) -> HttpResponse:
    """Top waits over the range; with from2/to2, a second interval side by side."""
    server = get_object_or_404(Server, pk=server_id)
    tr, _ = page_range(request)
    limit = int_param(request, "top", 20, 5, 200)
    conditions = include_conditions(request.GET)
    rows_a, hidden = shown_waits(reads.interval_waits(server.pk, tr.start, tr.end), conditions)
    start_b, end_b = parse_time_lenient(request.GET.get("from2")), parse_time_lenient(request.GET.get("to2"))
    context = {
        **range_context(request, tr), "server": server, "tab": "waits", "rows": rows_a[:limit],
        "limit": limit, "csv": topwaits_csv(server.pk, tr, conditions=conditions),
        "from2_value": request.GET.get("from2", ""), "to2_value": request.GET.get("to2", ""),
        **condition_toggle(request, conditions), "hidden": hidden,
        "per_trx": host_series.per_transaction_of(server.pk, tr.start, tr.end, rows_a),
    }
    if start_b and end_b and end_b > start_b:
        tr_b = from_query({"from": start_b.isoformat(), "to": end_b.isoformat()}, tr.end)
        rows_b, _ = shown_waits(reads.interval_waits(server.pk, tr_b.start, tr_b.end), conditions)
        context.update(tr_b=tr_b, diffs=diff_rows(rows_a, rows_b, limit),
                       per_trx_b=host_series.per_transaction_of(server.pk, tr_b.start, tr_b.end, rows_b),
                       diff_csv=topwaits_csv(server.pk, tr, tr_b, conditions=conditions))
    return render(request, "dashboards/waits.html", context)


def shown_waits(rows: list[WaitRow], conditions: bool) -> tuple[list[WaitRow], Hidden | None]:
    """All rows with the toggle on; else without condition waits, and what was left out."""
    return (rows, None) if conditions else without_conditions(rows)
