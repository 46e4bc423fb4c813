"""The fleet overview: every server, its state and why, and the figures that matter now."""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from alerts.status import firing_for_servers
from dashboards import host_series, reads
from dashboards.analysis.fleet_state import DISABLED, DOWN, NEVER, STALE, UP, State, server_state
from dashboards.analysis.purge_growth import RECENT, Trend, recent_trend
from dashboards.analysis.replica_now import ReplicaNow, replica_now
from dashboards.analysis.topwaits import include_conditions
from dashboards.views.common import TPS_DEFINITION, condition_toggle
from monitor.models import Server


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
    replica: ReplicaNow | None = None  # None: never read as a replica


def health_of(server: Server):
    """The collectors' ServerHealth row, or None before the first poll."""
    try:
        return server.health
    except Exception:  # noqa: BLE001 - RelatedObjectDoesNotExist, or the model not there yet
        return None


# Problems first: a server that is down must not hide below the healthy ones.
STATE_ORDER = {DOWN: 0, STALE: 1, NEVER: 2, UP: 3, DISABLED: 4}


def fleet(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "").strip()
    conditions = include_conditions(request.GET)
    servers = list(Server.objects.all())
    tags = sorted({t for s in servers for t in s.tags})
    rows = fleet_rows([s for s in servers if tag in s.tags] if tag else servers, conditions)
    return render(request, "dashboards/fleet.html", {
        "rows": rows, "tags": tags, "tag": tag, "tps_definition": TPS_DEFINITION,
        "counts": _counts(rows), "refresh": 30, **condition_toggle(request, conditions),
        "waits_query": "range=15m" + ("&cond=1" if conditions else ""),
        "csv": "/export/fleet.csv?" + urlencode({k: v for k, v in (("tag", tag), ("cond", "1" if conditions else ""))
                                                  if v}),
    })


def fleet_rows(servers: list[Server], conditions: bool) -> list[FleetRow]:
    """Each server now, problems first (down, stale, never polled), then by name."""
    now = timezone.now()
    ids = [s.pk for s in servers]
    latest = reads.fleet_latest(ids)
    # Twice the trend's window, every poll (1 s polls: 600 points): recent_trend fits the 5 minutes up to
    # the last poll, as the purge page does, not up to now (which would drop the first poll).
    history = reads.recent(ids, reads.HISTORY, now, 2 * RECENT, points=1200)
    alerts = firing_for_servers(ids)
    cpu = host_series.fleet_cpu(ids)
    rows = []
    for s in servers:
        h = history.get(s.pk)
        trend = recent_trend(h.ts, h.values) if h else None
        rows.append(FleetRow(
            server=s, state=server_state(s, health_of(s), now),
            tps=_value(latest, s.pk, reads.TPS), history=_value(latest, s.pk, reads.HISTORY),
            history_per_min=_per_minute(trend),
            top_wait=reads.top_wait_of(latest, s.pk, conditions), alerts=alerts.get(s.pk, []),
            cpu_busy=cpu.get(s.pk), replica=replica_now(latest, s.pk),
        ))
    return sorted(rows, key=lambda r: (STATE_ORDER.get(r.state.name, 9), r.server.name))


def _per_minute(trend: Trend | None) -> float | None:
    """The recent history trend a minute, 0 when flat (so the page says so)."""
    if trend is None or trend.per_minute is None:
        return None
    return 0.0 if trend.direction == "flat" else trend.per_minute


def _value(latest: dict, server_id: int, metric: str) -> float | None:
    found = latest.get((server_id, metric))
    return found[1] if found else None


def _counts(rows: list[FleetRow]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.state.name] = counts.get(row.state.name, 0) + 1
    return counts
