"""The fleet overview page: the rows come from dashboards.fleet_rows, this only renders them."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboards.analysis.topwaits import include_conditions
from dashboards.fleet_rows import fleet_rows, health_of, state_counts
from dashboards.views.common import TPS_DEFINITION, condition_toggle, tps_basis_of
from servers.models import Server

__all__ = ["fleet", "health_of"]  # the server and statements views import health_of from here


def fleet(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "").strip()
    conditions = include_conditions(request.GET)
    servers = list(Server.objects.select_related("health"))  # one statement, not one per server
    tags = sorted({t for s in servers for t in s.tags})
    rows = fleet_rows([s for s in servers if tag in s.tags] if tag else servers, conditions)
    bases = [tps_basis_of(r.server, getattr(health_of(r.server), "sources", None)) for r in rows]
    return render(request, "dashboards/fleet.html", {
        "rows": list(zip(rows, bases, strict=True)), "tags": tags, "tag": tag, "tps_definition": TPS_DEFINITION,
        "counts": state_counts(rows), "refresh": 30, **condition_toggle(request, conditions),
        "waits_query": "range=15m" + ("&cond=1" if conditions else ""),
        "csv": "/export/fleet.csv?" + urlencode({k: v for k, v in (("tag", tag), ("cond", "1" if conditions else ""))
                                                  if v}),
    })
