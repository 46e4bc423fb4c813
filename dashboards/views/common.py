"""What every dashboard page shares: its time range, links that keep the view (CSV links: dashboards/links.py)."""

from django.http import HttpRequest, QueryDict
from django.utils import timezone

from dashboards.analysis.statements import MONITORING_PARAM
from dashboards.analysis.topwaits import CONDITION_PARAM, CONDITION_PREFIX
from dashboards.query_params import kept_params, kept_query
from dashboards.timerange import PRESETS, TimeRange, from_query, iso_param, max_points, read_range

REFRESH_SECONDS = {"15m": 15, "1h": 30, "6h": 60, "24h": 120, "7d": 300}
# Pages about several servers; a server's own pages say how its TPS is counted (dashboards/server_texts.py).
TPS_DEFINITION = ("TPS = transactions per second, counted on each server by the best counter it has on "
                  "(docs/metrics.md; each server's stability page says which)")


def with_params(get: QueryDict, drop: tuple[str, ...] = (), **changes: str | int | None) -> str:
    """This page's query string with some parameters changed (None removes one)."""
    q = kept_query(get, drop)
    for key, value in changes.items():
        if value is None:
            q.pop(key, None)
        else:
            q[key] = str(value)
    return "?" + q.urlencode() if q else "?"


def range_context(request: HttpRequest, tr: TimeRange) -> dict:
    """The toolbar: presets, the fixed range, auto-refresh for live ranges."""
    get = request.GET
    presets = [(name, with_params(get, drop=("from", "to"), range=name), tr.preset == name) for name in PRESETS]
    return {
        "tr": tr, "presets": presets, "refresh": REFRESH_SECONDS.get(tr.preset or "", 0),
        "from_value": iso_param(tr.start)[:16], "to_value": iso_param(tr.end)[:16],
        "hidden_params": kept_params(get, ("from", "to", "range")),
        "tps_definition": TPS_DEFINITION, "range_problem": read_range(get, timezone.now())[1],
    }


def page_range(request: HttpRequest) -> tuple[TimeRange, int]:
    return from_query(request.GET, timezone.now()), max_points(request.GET)


def monitoring_toggle(request: HttpRequest, monitoring: bool) -> dict:
    """The "rank monitoring reads" checkbox (?monitoring=1): a form that keeps every other parameter."""
    return {"monitoring": monitoring, "monitoring_keep": kept_params(request.GET, (MONITORING_PARAM,))}


def condition_toggle(request: HttpRequest, conditions: bool) -> dict:
    """The "include condition waits" checkbox: a form that keeps every other parameter."""
    keep = kept_params(request.GET, (CONDITION_PARAM,))
    on = kept_query(request.GET)
    on[CONDITION_PARAM] = "1"
    return {"conditions": conditions, "condition_keep": keep, "condition_prefix": CONDITION_PREFIX,
            "conditions_on": "?" + on.urlencode()}
