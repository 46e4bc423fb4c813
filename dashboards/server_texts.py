"""What a server's polls say its counters are: how its TPS is counted, its charts' titles, its TPS basis (the
latest polls), and which wait instruments were off (the polls of a range)."""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from collectors import transactions, weakened
from collectors.connection import parse_version
from collectors.models import ServerHealth
from collectors.sources import innodb_mutex, wait_instruments
from store import query


class ServerTexts(NamedTuple):
    definition: str  # the page's sentence: how this server's TPS is counted
    title: str  # the TPS row's title on its charts: the counter the line comes from
    mutex_title: str  # the mutex row's: OS waits, or every latch acquisition (performance_schema)
    basis: str | None = None  # the counter the latest poll's tps came from (collectors.transactions)
    fix: str = ""  # explicit transactions only: what turns on a counter of every transaction (as the fleet says)


def server_texts(server) -> ServerTexts:
    """What this server's latest polls said their counters are (one read of its health row)."""
    health = ServerHealth.objects.filter(server=server).values_list("sources", flat=True).first() or {}
    status = health.get("global_status")
    basis = tps_basis_of(server, health)
    return ServerTexts(transactions.definition(status), transactions.chart_title(status),
                       innodb_mutex.chart_title(health.get("innodb_mutex")), transactions.basis_of(status),
                       basis.fix if basis else "")


INSTRUMENT_GAUGES = [gauge + family for gauge in (wait_instruments.OFF_GAUGE, wait_instruments.ALL_GAUGE)
                     for family in weakened.WAIT_FAMILIES]


def waits_note(server_id: int, start: datetime, end: datetime) -> str:
    """Which wait instruments the range's polls found off (the gauges wait_instruments stores), and how to turn them on;
    "" when none was. A range before the instruments went off, or after they came back on, says nothing."""
    found = {s.metric: [v for v in s.values if v is not None]
             for s in query.series([server_id], INSTRUMENT_GAUGES, start, end, max_points=200)}
    lines = []
    for family in weakened.WAIT_FAMILIES:
        off = found.get(wait_instruments.OFF_GAUGE + family) or [0]
        if max(off) > 0:
            total = max(found.get(wait_instruments.ALL_GAUGE + family) or off)
            lost = weakened.family_off(family, int(max(off)), int(total))
            during = "in every poll of this range" if min(off) > 0 else "in part of this range"
            lines.append(f"{lost.setting} off {during}: {lost.lost}; {lost.fix}")
    return "; ".join(lines)


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
