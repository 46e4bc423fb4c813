"""Per-server Statements tab (digests ranked over a range, with small lines) and one statement's page."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collectors.sources.statements import CONSUMER_FIX
from collectors.statement_rows import top_n
from dashboards import reads
from dashboards.analysis.statements import (
    DEFAULT_ORDER,
    MONITORING_PARAM,
    ORDERS,
    latencies,
    rank,
    rates,
)
from dashboards.analysis.wait_statements import basis
from dashboards.figures.statements import statement_figure
from dashboards.links import exact_param, link
from dashboards.prepared_note import unseen_prepared
from dashboards.query_params import int_param, monitoring_param, order_param, wait_event_param
from dashboards.server_texts import BASIS_SERIES, range_texts, statements_note
from dashboards.source_health import source_health
from dashboards.statement_lines import lines_of
from dashboards.timerange import TimeRange
from dashboards.views.common import monitoring_toggle, page_range, range_context
from servers.models import Run, Server
from store.statements import NULL_DIGEST

DEFAULT_TOP, MAX_TOP = 50, 500
CHART_ID = "statement-chart"
RUNS_LOOKED_AT = 200  # the newest runs of the server checked for a digest
CONSUMER_SQL = CONSUMER_FIX + ";"
EXTRA_COLUMNS = ("lock", "rows_examined", "rows_affected")  # rankings whose figure has no column of its own


def statements_csv(server_id: int, tr: TimeRange, order: str, monitoring: bool = False) -> str:
    return link("export-statements", query={"server": server_id, "from": exact_param(tr.start),
                                            "to": exact_param(tr.end), "order": order,
                                            **({MONITORING_PARAM: "1"} if monitoring else {})})


def reads_end_early(found: reads.StatementsRange, tr: TimeRange) -> float | None:
    """Seconds from the range's last read to its end, where they show (half a second or more): the reads sum only
    to their own end, and what ran after it is in the next read, which ends after the range."""
    if found.covered is None:
        return None
    seconds = (tr.end - found.covered[1]).total_seconds()
    return seconds if seconds >= 0.5 else None


def per_trx_basis(server: Server, found: reads.StatementsRange, tr: TimeRange) -> dict:
    """What the figures per transaction divide by: the TPS counter of the span the reads cover (the range's where
    none does), said as the stability page says it, with the statement that counts every transaction."""
    texts = range_texts(server, reads.interval_sums(server.pk, BASIS_SERIES, *(found.covered or (tr.start, tr.end))))
    return {"tps_definition": texts.definition, "tps_fix": texts.fix}


def statements(request: HttpRequest, server_id: int) -> HttpResponse:
    """The range's statements ranked by the chosen figure, each with its line over the range."""
    server = get_object_or_404(Server, pk=server_id)
    tr, _ = page_range(request)
    limit, limit_problem = int_param(request.GET, "top", DEFAULT_TOP, 5, MAX_TOP, "the top {} statements")
    wait = wait_event_param(request.GET)
    wait_basis = basis(wait) if wait else None
    order, order_problem = order_param(request.GET, wait_basis.order if wait_basis else DEFAULT_ORDER)
    monitoring, monitoring_problem = monitoring_param(request.GET)
    found = reads.statements_in(server.pk, tr.start, tr.end)
    ranked = rank(found.rows, order, limit, monitoring)
    context = {
        **range_context(request, tr), "server": server, "tab": "statements", "found": found, "ranked": ranked,
        "lines": lines_of(server.pk, tr, found, ranked), "reads_end_early": reads_end_early(found, tr),
        "order": order, "orders": ORDERS.items(), **per_trx_basis(server, found, tr),
        "wait": wait, "wait_basis": wait_basis, "wait_basis_label": ORDERS[wait_basis.order][0] if wait_basis else "",
        "extra_column": order if order in EXTRA_COLUMNS else "",
        "order_label": ORDERS[order][0], "limit": limit, "csv": statements_csv(server.pk, tr, order, monitoring),
        "param_notes": [p for p in (limit_problem, order_problem, monitoring_problem) if p],
        **monitoring_toggle(request, monitoring),
        "source": source_health(server, "statements") or {}, "consumer_sql": CONSUMER_SQL,
        "weakened": statements_note(server.pk, tr.start, tr.end),
        "prepared_unseen": unseen_prepared(server.flavor, found),
        "rest_share": ranked.share(ranked.rest) if ranked.rest else None, "top_n": top_n(),
        "table_full": next((line for line in found.rows if (line.schema, line.digest) == NULL_DIGEST), None),
    }
    return render(request, "dashboards/statements.html", context)


def statement(request: HttpRequest, server_id: int, digest_id: int) -> HttpResponse:
    """One digest: its text, its lines of executions/s and latency over the range, the runs it ran in."""
    server = get_object_or_404(Server, pk=server_id)
    text = reads.statement_text(digest_id)
    if text is None:
        raise Http404(f"there is no statement digest {digest_id}")
    tr, points = page_range(request)
    found = reads.statements_in(server.pk, tr.start, tr.end, with_overflow=False, digest_ids=[digest_id])
    totals = next((row for row in found.rows if row.digest_id == digest_id), None)
    count = max(10, min(240, points // 8))
    bins = reads.statement_read_bins(server.pk, tr.start, tr.end, count)  # found.reads' bins
    execs, times = zip(*reads.statement_bins(server.pk, [digest_id], tr.start, tr.end, count)[digest_id], strict=True)
    figure = statement_figure(bins.starts, rates(list(execs), bins), latencies(list(execs), list(times), bins),
                              f"{text.schema or '-'}: {text.digest}")
    runs = list(Run.objects.filter(server=server).order_by("-started_at")[:RUNS_LOOKED_AT])
    context = {
        **range_context(request, tr), "server": server, "tab": "statements", "text": text, "totals": totals,
        "found": found, "figures": {CHART_ID: figure}, "chart_id": CHART_ID,
        "runs": reads.runs_with_statement(server.pk, digest_id, runs), "runs_looked_at": RUNS_LOOKED_AT,
        "csv": link("export-statement", query={"server": server.pk, "digest": digest_id,
                                               "from": exact_param(tr.start), "to": exact_param(tr.end)}),
        "time_per_trx": totals.sums["time_ps"] / found.transactions if totals and found.transactions else None,
        **per_trx_basis(server, found, tr),
        # why nothing shows where the server's digest source is off or weakened, as the Statements tab says it
        "source": source_health(server, "statements") or {}, "consumer_sql": CONSUMER_SQL,
        "weakened": statements_note(server.pk, tr.start, tr.end),
    }
    return render(request, "dashboards/statement.html", context)
