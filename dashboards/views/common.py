"""What every dashboard page shares: its time range, links that keep the view, CSV links."""

from urllib.parse import urlencode

from django.http import HttpRequest, QueryDict
from django.utils import timezone

from dashboards.timerange import PRESETS, TimeRange, from_query, iso_param, max_points

REFRESH_SECONDS = {"15m": 15, "1h": 30, "6h": 60, "24h": 120, "7d": 300}
TPS_DEFINITION = "TPS = (Com_commit + Com_rollback) per second, from SHOW GLOBAL STATUS"


def with_params(get: QueryDict, drop: tuple[str, ...] = (), **changes: str | int | None) -> str:
    """This page's query string with some parameters changed (None removes one)."""
    q = get.copy()
    for key in drop:
        q.pop(key, None)
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
        "hidden_params": [(k, v) for k, vs in get.lists() if k not in ("from", "to", "range") for v in vs],
        "tps_definition": TPS_DEFINITION,
    }


def page_range(request: HttpRequest) -> tuple[TimeRange, int]:
    return from_query(request.GET, timezone.now()), max_points(request.GET)


def step_seconds(tr: TimeRange, points: int) -> int:
    return max(1, round(tr.seconds / points))


def chart_csv(server_id: int, metrics: list[str], tr: TimeRange, points: int) -> str:
    """The export engineer's CSV of exactly what a chart shows."""
    return "/export.csv?" + urlencode({
        "server": server_id, "metrics": ",".join(metrics), "from": iso_param(tr.start),
        "to": iso_param(tr.end), "step": step_seconds(tr, points),
    })


def topwaits_csv(server_id: int, tr: TimeRange) -> str:
    return "/export/topwaits.csv?" + urlencode(
        {"server": server_id, "from": iso_param(tr.start), "to": iso_param(tr.end)}
    )
