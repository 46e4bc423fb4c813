"""What every dashboard page shares: its time range, links that keep the view (CSV links: dashboards/links.py)."""

from dataclasses import dataclass
from typing import NamedTuple

from django.http import HttpRequest, QueryDict
from django.utils import timezone

from collectors import transactions
from collectors.connection import parse_version
from collectors.models import ServerHealth
from collectors.sources import innodb_mutex, pfs_waits
from dashboards.analysis.topwaits import CONDITION_PARAM, CONDITION_PREFIX
from dashboards.timerange import PRESETS, TimeRange, from_query, iso_param, max_points, read_range

REFRESH_SECONDS = {"15m": 15, "1h": 30, "6h": 60, "24h": 120, "7d": 300}
# Pages about several servers; a server's own pages say how its TPS is counted (server_texts).
TPS_DEFINITION = ("TPS = transactions per second, counted on each server by the best counter it has on "
                  "(docs/metrics.md; each server's stability page says which)")


class ServerTexts(NamedTuple):
    definition: str  # the page's sentence: how this server's TPS is counted
    title: str  # the TPS row's title on its charts: the counter the line comes from
    mutex_title: str  # the mutex row's: OS waits, or every latch acquisition (performance_schema)
    basis: str | None = None  # the counter the latest poll's tps came from (collectors.transactions)
    waits_note: str = ""  # the wait instruments the server leaves off, and how to turn them on


def server_texts(server) -> ServerTexts:
    """What this server's latest polls said their counters are (one read of its health row)."""
    health = ServerHealth.objects.filter(server=server).values_list("sources", flat=True).first() or {}
    status = health.get("global_status")
    note = (health.get("pfs_waits") or {}).get("note") or ""
    return ServerTexts(transactions.definition(status), transactions.chart_title(status),
                       innodb_mutex.chart_title(health.get("innodb_mutex")), transactions.basis_of(status),
                       note[note.find(pfs_waits.OFF_PREFIX):] if pfs_waits.OFF_PREFIX in note else "")


@dataclass(frozen=True)
class TpsBasis:
    """What a server's TPS counts, per its latest poll: a few words for tables, the page's sentence."""

    short: str
    sentence: str
    explicit_only: bool  # autocommit statements are not counted: 0 TPS under an autocommit load
    fix: str = ""  # explicit only: what turns on a counter of every transaction on that server


def tps_basis_of(server, sources: dict | None) -> TpsBasis | None:
    """One server's TPS basis from its health row's sources, with the statement that turns a better one on."""
    sources = sources or {}
    status = sources.get("global_status")
    basis = transactions.basis_of(status)
    if not basis:
        return None
    explicit = basis == transactions.EXPLICIT
    performance_schema = not (sources.get("pfs_waits") or {}).get("unavailable")
    fix = transactions.enable_hint(server.flavor, parse_version(server.version or ""), performance_schema)
    return TpsBasis(transactions.SHORT[basis], transactions.definition(status), explicit, fix if explicit else "")


def tps_bases(server_ids: list[int]) -> dict[int, TpsBasis]:
    """Each server's TPS basis, from one read of the health rows (servers never polled are left out)."""
    out = {}
    for server_id, sources in ServerHealth.objects.filter(server_id__in=server_ids).values_list("server_id",
                                                                                                 "sources"):
        status = (sources or {}).get("global_status")
        basis = transactions.basis_of(status)
        if basis:
            out[server_id] = TpsBasis(transactions.SHORT[basis], transactions.definition(status),
                                      basis == transactions.EXPLICIT)
    return out


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
        "tps_definition": TPS_DEFINITION, "range_problem": read_range(get, timezone.now())[1],
    }


def page_range(request: HttpRequest) -> tuple[TimeRange, int]:
    return from_query(request.GET, timezone.now()), max_points(request.GET)


def condition_toggle(request: HttpRequest, conditions: bool) -> dict:
    """The "include condition waits" checkbox: a form that keeps every other parameter."""
    keep = [(k, v) for k, vs in request.GET.lists() if k != CONDITION_PARAM for v in vs]
    return {"conditions": conditions, "condition_keep": keep, "condition_prefix": CONDITION_PREFIX}
