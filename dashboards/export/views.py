"""CSV downloads: any series range, top waits, run comparisons, annotations.

Every response streams: rows go out as the store returns them, chunk by chunk.
"""

import re
from collections.abc import Iterable, Iterator
from functools import wraps
from itertools import chain

from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict, StreamingHttpResponse
from django.views.decorators.http import require_GET

from dashboards import per_trx_reads, reads
from dashboards.analysis.statements import DEFAULT_ORDER, MONITORING_PARAM, ORDERS, changed_most, rank
from dashboards.analysis.step_window import Window
from dashboards.analysis.topwaits import diff_rows, shown
from dashboards.export import params
from dashboards.export.auth import session_or_token
from dashboards.export.csv_safe import CsvLines, iso_utc
from dashboards.export.series import checked_columns, header, rows
from dashboards.export.statement_tables import diff_rows as statement_diff_rows
from dashboards.export.statement_tables import line_rows, top_rows
from dashboards.export.tables import (
    annotation_rows,
    compare_rows,
    fleet_table_rows,
    holder_rows,
    scalability_rows,
    topwaits_diff_rows,
    topwaits_rows,
)
from dashboards.fleet_rows import fleet_rows, health_of
from dashboards.own_load_reads import own_load
from dashboards.query_params import BadParam, runs_sort
from dashboards.reports.run_table import DEFAULT_SORT, SORTS, run_lines, table_rows
from dashboards.reports.scalability import study
from dashboards.reports.summary import basis_sums, summarize_run
from dashboards.server_texts import BASIS_SERIES, range_basis, tps_basis_of
from dashboards.url_ids import parse_id
from servers.models import Annotation, Run, Server

BOM = "\ufeff"  # lets Excel read UTF-8; off unless asked (bom=1), scripts rarely want it


def csv_response(rows: Iterable[Iterable[object]], filename: str, bom: bool = False) -> StreamingHttpResponse:
    lines: Iterator[str] = CsvLines().lines(rows)
    if bom:
        lines = chain([BOM], lines)
    response = StreamingHttpResponse((line.encode() for line in lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Accel-Buffering"] = "no"  # a proxy must pass the stream on, not buffer it
    return response


def slug(*parts: object) -> str:
    """A file name safe in a Content-Disposition header on every OS."""
    text = "_".join(str(p) for p in parts)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:150] or "export"


def bad_request(error: params.ExportError) -> HttpResponse:
    return HttpResponseBadRequest(f"CSV export: {error}\n", content_type="text/plain; charset=utf-8")


def _flag(get: QueryDict, name: str) -> bool:
    """A yes/no parameter; a value that is neither is an ExportError (a 400 through refuses_bad_params)."""
    return params.parse_flag(get.get(name), name)


def refuses_bad_params(view):
    """A parameter the view cannot use (params.ExportError, raised anywhere before the response starts) answers 400
    naming it, never a guess."""
    @wraps(view)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except params.ExportError as error:
            return bad_request(error)
    return checked


def csv_export(view):
    """A CSV download: for a logged-in user or an API token, GET only, a bad parameter a 400."""
    return session_or_token(require_GET(refuses_bad_params(view)))


@csv_export
def series_csv(request: HttpRequest) -> HttpResponse:
    """/export.csv: one row per time bucket (poll interval or step), one column per series."""
    export = params.series_export(
        request.GET.getlist("server"), request.GET.getlist("metrics"), request.GET.get("from"),
        request.GET.get("to"), request.GET.get("step"), request.GET.get("mode"), _flag(request.GET, "full"),
        preset=request.GET.get("range"), points=request.GET.get("w") or request.GET.get("points"),
        run=request.GET.get("run"), minmax=_flag(request.GET, "minmax"), seconds=_flag(request.GET, "seconds"),
    )
    # checked before the response starts, so a store error is a 500, not a torn file
    cols = checked_columns(export)
    body = chain([header(export, cols)], rows(export, cols) if cols else [])
    name = slug(*(s.name for s in export.servers), iso_utc(export.start), iso_utc(export.end)) + ".csv"
    return csv_response(body, name, _flag(request.GET, "bom"))


@csv_export
def topwaits_csv(request: HttpRequest) -> HttpResponse:
    """/export/topwaits.csv: one interval, or two (from2/to2) with their differences."""
    get = request.GET
    server, start, end = server_and_range(get)
    second = params.parse_range(get.get("from2"), get.get("to2"), "2") if get.get("from2") else None
    ranked = params.parse_wait_toggle(get.get("cond"), "cond"), params.parse_wait_toggle(get.get("client"), "client")
    first = waits_of(server.pk, start, end, *ranked)
    per_trx = per_trx_reads.per_transaction_of(server.pk, start, end, first)
    if second is None:
        body = topwaits_rows(first, per_trx)
        name = slug("topwaits", server.name, iso_utc(start), iso_utc(end))
    else:
        waits_b = waits_of(server.pk, *second, *ranked)
        per_trx_b = per_trx_reads.per_transaction_of(server.pk, *second, waits_b)
        spans = reads.interval_span(server.pk, start, end, per_trx), reads.interval_span(server.pk, *second, per_trx_b)
        body = topwaits_diff_rows(diff_rows(first, waits_b, None, *spans), per_trx, per_trx_b)
        name = slug("topwaits", server.name, iso_utc(start), "vs", iso_utc(second[0]))
    return csv_response(body, name + ".csv", _flag(request.GET, "bom"))


def server_and_range(get) -> tuple:
    """The one server (server=) and the range (from/to or range=) of a table export."""
    server = params.find_servers(get.getlist("server"))[0]
    return (server, *params.parse_range(get.get("from"), get.get("to"), preset=get.get("range")))


def waits_of(server_id: int, start, end, conditions: bool, client: bool) -> list:
    """The waits ranked as the waits page ranks them: wait/synch/cond/* only with cond=1, client time only
    with client=1."""
    return shown(reads.interval_waits(server_id, start, end), conditions, client)[0]


@csv_export
def compare_csv(request: HttpRequest) -> HttpResponse:
    """/export/compare.csv?runs=1,2: one summary row per run, ratio to the first."""
    runs, warmup = params.find_runs(request.GET.getlist("runs")), params.parse_warmup(request.GET)
    summaries = [summarize_run(run, warmup, also=(*per_trx_reads.RUN_TIMES, *BASIS_SERIES)) for run in runs]
    per_trx = [per_trx_reads.run_figures(s.run.server_id, Window(s.start, s.end), s.polls, counts=False)[1]
               for s in summaries]
    bases = [range_basis(s.run.server, basis_sums(s)) for s in summaries]
    own = [getattr(own_load(s.run, s.warmup), "tps", None) for s in summaries]
    return csv_response(compare_rows(summaries, per_trx, bases, own),
                        slug("compare-runs", *(r.pk for r in runs)) + ".csv", _flag(request.GET, "bom"))


@csv_export
def annotations_csv(request: HttpRequest) -> HttpResponse:
    """/export/annotations.csv?server=..&from=..&to=..: the marks drawn on a server's charts."""
    get = request.GET
    servers = params.find_servers(get.getlist("server"))
    start, end = params.parse_range(get.get("from"), get.get("to"), preset=get.get("range"), future=True)
    marks = (
        Annotation.objects.filter(Q(server__in=servers) | Q(server__isnull=True), at__gte=start, at__lte=end)
        .select_related("server", "run").order_by("at")
    )
    name = slug("annotations", *(s.name for s in servers), iso_utc(start), iso_utc(end)) + ".csv"
    return csv_response(annotation_rows(marks.iterator()), name, _flag(request.GET, "bom"))


@csv_export
def fleet_csv(request: HttpRequest) -> HttpResponse:
    """/export/fleet.csv?tag=..&cond=1: the fleet page's table, problems first."""
    tag = request.GET.get("tag", "").strip()
    servers = [s for s in Server.objects.select_related("health") if not tag or tag in s.tags]  # one statement
    rows = fleet_rows(servers, params.parse_wait_toggle(request.GET.get("cond"), "cond"))
    bases = [tps_basis_of(r.server, getattr(health_of(r.server), "sources", None)) for r in rows]
    return csv_response(fleet_table_rows(rows, bases), slug("fleet", tag) + ".csv", _flag(request.GET, "bom"))


@csv_export
def scalability_csv(request: HttpRequest) -> HttpResponse:
    """/export/scalability.csv?sweep=A&sweep=B: every level of every curve, as the Scalability page shows it."""
    try:
        found = study(request.GET)
    except BadParam as error:
        raise params.ExportError(str(error)) from error
    name = slug("scalability", *(c.name for c in found.curves)) + ".csv"
    return csv_response(scalability_rows(found), name, _flag(request.GET, "bom"))


RUNS_CSV_LIMIT = 10_000


@csv_export
def runs_csv(request: HttpRequest) -> HttpResponse:
    """/export/runs.csv?server=ID&sort=-tps: the runs table, with each run's average TPS after its warm-up."""
    server = request.GET.get("server", "")
    runs = Run.objects.all()
    if server:
        server_id = parse_id(server)
        if server_id is None:
            raise params.ExportError(f"server={server!r}: give the server's id, as the runs page does")
        runs = runs.filter(server_id=server_id)
    lines = run_lines(runs, runs_sort(request.GET, SORTS, DEFAULT_SORT), RUNS_CSV_LIMIT)
    return csv_response(table_rows(lines), "runs.csv", _flag(request.GET, "bom"))


@csv_export
def holders_csv(request: HttpRequest) -> HttpResponse:
    """/export/holders.csv?server=..&from=..&to=..: who held the oldest transaction (the purge page's table)."""
    server, start, end = server_and_range(request.GET)
    name = slug("holders", server.name, iso_utc(start), iso_utc(end)) + ".csv"
    return csv_response(holder_rows(reads.holders_in(server.pk, start, end)), name, _flag(request.GET, "bom"))


@csv_export
def statements_csv(request: HttpRequest) -> HttpResponse:
    """/export/statements.csv: a range's statements ranked (order=), or with runs=A,B the changed-most table."""
    get = request.GET
    if get.get("runs"):
        return statements_of_runs_csv(request, params.find_runs(get.getlist("runs")), params.parse_warmup(get))
    server, start, end = server_and_range(get)
    order = statement_order(get.get("order"))
    monitoring = _flag(get, MONITORING_PARAM)
    found = reads.statements_in(server.pk, start, end, with_overflow=False)
    body = top_rows(rank(found.rows, order, monitoring=monitoring), found.transactions)
    return csv_response(body, slug("statements", server.name, iso_utc(start), iso_utc(end)) + ".csv",
                        _flag(request.GET, "bom"))


def statement_order(raw: str | None) -> str:
    if not raw:
        return DEFAULT_ORDER
    if raw not in ORDERS:
        raise params.ExportError(f"order={raw!r}: use one of {', '.join(ORDERS)}")
    return raw


def statements_of_runs_csv(request: HttpRequest, runs: list, warmup: int | None) -> HttpResponse:
    """One run: its statements ranked by time; two: by how much their time per transaction changed."""
    if len(runs) > 2:
        raise params.ExportError(f"runs= takes one run, or two to compare (got {len(runs)})")
    monitoring = _flag(request.GET, MONITORING_PARAM)
    found = [reads.run_statements(run, warmup) for run in runs]
    if len(runs) == 1:
        body = top_rows(rank(found[0].rows, monitoring=monitoring), found[0].transactions)
        return csv_response(body, slug("statements", runs[0].name) + ".csv", _flag(request.GET, "bom"))
    # Every digest, the monitoring reads labelled: a CSV drops no row.
    diffs = changed_most(found[0].rows, found[1].rows, found[0].transactions, found[1].transactions, monitoring=True)
    name = slug("statements", runs[0].name, "vs", runs[1].name) + ".csv"
    return csv_response(statement_diff_rows(diffs), name, _flag(request.GET, "bom"))


@csv_export
def statement_csv(request: HttpRequest) -> HttpResponse:
    """/export/statement.csv: one digest's stored reads over a range (digest= its id on the statement page)."""
    get = request.GET
    server, start, end = server_and_range(get)
    digest_id = parse_id(get.get("digest", ""))
    if digest_id is None:
        raise params.ExportError(f"digest={get.get('digest', '')!r}: give a statement's digest id (a number)")
    line = reads.statement_lines(server.pk, [digest_id], start, end)[digest_id]
    name = slug("statement", server.name, digest_id, iso_utc(start), iso_utc(end)) + ".csv"
    return csv_response(line_rows(line), name, _flag(request.GET, "bom"))
