"""The fleet overview page: the rows come from dashboards.fleet_rows, this only renders them."""

from datetime import datetime
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import SafeString

from dashboards.analysis.topwaits import include_conditions
from dashboards.fleet_rows import FleetRow, health_of, ranked, state_counts, with_figures
from dashboards.views.common import TPS_DEFINITION, condition_toggle, tps_basis_of, with_params
from dashboards.views.fleet_table import table_rows
from servers.models import Server

__all__ = ["fleet", "health_of"]  # the server and statements views import health_of from here
# A page's rows are read and drawn for the servers it shows: 1,000 servers are ten pages, each
# answered about as fast as a fleet of 100; the states' counts and the order are the whole fleet's.
PER_PAGE = 100


def fleet(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "").strip()
    conditions = include_conditions(request.GET)
    servers = list(Server.objects.select_related("health"))  # one statement, not one per server
    tags = sorted({t for s in servers for t in s.tags})
    now = timezone.now()
    rows = ranked([s for s in servers if tag in s.tags] if tag else servers, now)
    pages, asked = Paginator(rows, PER_PAGE, allow_empty_first_page=True), request.GET.get("page", "1")
    page = page_of(pages, asked)
    if page is None:
        return HttpResponseBadRequest(f"page: a whole number from 1 to {pages.num_pages}, not {asked[:40]!r}\n",
                                      content_type="text/plain; charset=utf-8")
    return render(request, "dashboards/fleet.html", {
        "rows": rows, "table_rows": drawn(list(page.object_list), conditions, now), "page": page,
        "page_links": [(n, with_params(request.GET, page=n)) for n in pages.page_range], "tags": tags, "tag": tag,
        "counts": state_counts(rows), "tps_definition": TPS_DEFINITION, "refresh": 30,
        **condition_toggle(request, conditions), "csv": csv_link(tag, conditions),
    })


def drawn(shown: list[FleetRow], conditions: bool, now: datetime) -> SafeString:
    """The rows of this page with their figures, as the table's HTML."""
    with_figures(shown, conditions, now)
    bases = [tps_basis_of(r.server, getattr(health_of(r.server), "sources", None)) for r in shown]
    return table_rows(list(zip(shown, bases, strict=True)), "range=15m" + ("&cond=1" if conditions else ""))


def csv_link(tag: str, conditions: bool) -> str:
    return "/export/fleet.csv?" + urlencode({k: v for k, v in (("tag", tag), ("cond", "1" if conditions else "")) if v})


def page_of(pages: Paginator, asked: str) -> Page | None:
    """The page asked for; None unless a whole number within the pages."""
    if not asked.isascii() or not asked.isdigit() or not 1 <= int(asked) <= pages.num_pages:
        return None
    return pages.page(int(asked))
