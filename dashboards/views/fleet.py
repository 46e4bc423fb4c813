"""The fleet overview page: its rows come from dashboards.fleet_page, this only renders them."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString

from dashboards.fleet_page import NoSuchPage, fleet_page
from dashboards.fleet_rows import FleetRow, health_of
from dashboards.query_params import conditions_param
from dashboards.server_texts import tps_basis_of
from dashboards.views.common import TPS_DEFINITION, condition_toggle, with_params
from dashboards.views.fleet_table import table_rows


def fleet(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "").strip()
    conditions, conditions_problem = conditions_param(request.GET)
    try:
        found = fleet_page(tag, conditions, request.GET.get("page", "1"))
    except NoSuchPage as e:
        return HttpResponseBadRequest(f"{e}\n", content_type="text/plain; charset=utf-8")
    page = found.page
    return render(request, "dashboards/fleet.html", {
        "rows": found.rows, "table_rows": drawn(found.rows, conditions), "page": page,
        "page_links": [(n, with_params(request.GET, page=n)) for n in page.paginator.page_range],
        "tags": found.tags, "tag": tag, "counts": found.counts, "tps_definition": TPS_DEFINITION, "refresh": 30,
        **condition_toggle(request, conditions), "csv": csv_link(tag, conditions),
        "param_notes": [conditions_problem] if conditions_problem else [],
    })


def drawn(rows: list[FleetRow], conditions: bool) -> SafeString:
    """The table's HTML, with what each server's TPS counts (its health row's sources)."""
    bases = [tps_basis_of(r.server, getattr(health_of(r.server), "sources", None)) for r in rows]
    return table_rows(list(zip(rows, bases, strict=True)), "range=15m" + ("&cond=1" if conditions else ""))


def csv_link(tag: str, conditions: bool) -> str:
    query = {k: v for k, v in (("tag", tag), ("cond", "1" if conditions else "")) if v}
    return reverse("export-fleet") + "?" + urlencode(query)
