"""The fleet overview: every server, its state and why, and the figures that matter now."""

from dataclasses import dataclass
from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from alerts.status import firing_for_servers
from dashboards import host_series, reads
from dashboards.analysis.fleet_state import State, server_state
from dashboards.analysis.purge_growth import growth_per_second
from dashboards.analysis.topwaits import include_conditions
from dashboards.views.common import TPS_DEFINITION, condition_toggle
from monitor.models import Server

TREND_WINDOW = timedelta(minutes=15)


@dataclass
class FleetRow:
    server: Server
    state: State
    tps: float | None
    history: float | None
    history_per_min: float | None
    top_wait: reads.TopWait | None
    alerts: list[str]
    cpu_busy: float | None = None  # % of the host at the last node_exporter poll


def health_of(server: Server):
    """The collectors' ServerHealth row, or None before the first poll."""
    try:
        return server.health
    except Exception:  # noqa: BLE001 - RelatedObjectDoesNotExist, or the model not there yet
        return None


def fleet(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "").strip()
    conditions = include_conditions(request.GET)
    servers = list(Server.objects.all())
    tags = sorted({t for s in servers for t in s.tags})
    if tag:
        servers = [s for s in servers if tag in s.tags]
    now = timezone.now()
    ids = [s.pk for s in servers]
    latest = reads.fleet_latest(ids)
    history = reads.recent(ids, reads.HISTORY, now, TREND_WINDOW)
    alerts = firing_for_servers(ids)
    cpu = host_series.fleet_cpu(ids)
    rows = []
    for s in servers:
        h = history.get(s.pk)
        slope = growth_per_second(h.ts, h.values, TREND_WINDOW) if h else None
        rows.append(FleetRow(
            server=s, state=server_state(s, health_of(s), now),
            tps=_value(latest, s.pk, reads.TPS), history=_value(latest, s.pk, reads.HISTORY),
            history_per_min=None if slope is None else slope * 60,
            top_wait=reads.top_wait_of(latest, s.pk, conditions), alerts=alerts.get(s.pk, []),
            cpu_busy=cpu.get(s.pk),
        ))
    return render(request, "dashboards/fleet.html", {
        "rows": rows, "tags": tags, "tag": tag, "tps_definition": TPS_DEFINITION,
        "counts": _counts(rows), "refresh": 30, **condition_toggle(request, conditions),
        "waits_query": "range=15m" + ("&cond=1" if conditions else ""),
    })


def _value(latest: dict, server_id: int, metric: str) -> float | None:
    found = latest.get((server_id, metric))
    return found[1] if found else None


def _counts(rows: list[FleetRow]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.state.name] = counts.get(row.state.name, 0) + 1
    return counts
