"""What a server's polls say its counters are: how its TPS is counted (the polls of a range, else the latest),
its charts' titles, its TPS basis, and which wait and statement instruments were off (the polls of a range)."""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.core.exceptions import ObjectDoesNotExist

from collectors import transactions, weakened
from collectors.connection import ServerInfo, parse_version
from collectors.metric import TPS
from collectors.models import ServerHealth
from collectors.sources import innodb_mutex, wait_instruments
from collectors.sources import statements as statements_source
from collectors.status import OFF, OK, status_of
from servers.models import Server
from store import query


class ServerTexts(NamedTuple):
    definition: str  # the page's sentence: how this server's TPS is counted
    title: str  # the TPS row's title on its charts: the counter the line comes from
    mutex_title: str  # the mutex row's: OS waits, or every latch acquisition (performance_schema)
    basis: str | None = None  # the counter the polls' tps came from (collectors.transactions); None: unknown, mixed
    fix: str = ""  # explicit transactions only: what turns on a counter of every transaction (as the fleet says)
    mixed: bool = False  # the range's polls counted TPS by more than one counter


def server_texts(server) -> ServerTexts:
    """What this server's latest polls said their counters are (one read of its health row)."""
    return texts_of(server, health_sources(server))


def health_sources(server) -> dict:
    """The sources of the server's health row, {} before its first poll: read through `server.health`, which
    the server object keeps, so a page's readers of it (texts, the source's problem, unreachable) read it once."""
    try:
        return server.health.sources or {}
    except ObjectDoesNotExist:  # never polled: no health row yet
        return {}


def texts_of(server, health: dict) -> ServerTexts:
    status = health.get("global_status")
    basis = tps_basis_of(server, health)
    return ServerTexts(transactions.definition(status), transactions.chart_title(status),
                       innodb_mutex.chart_title(health.get("innodb_mutex")), transactions.basis_of(status),
                       basis.fix if basis else "")


# What range_texts() reads over a range (reads.interval_sums): tps and each counter it may be the delta of.
BASIS_SERIES = [TPS, *transactions.PREFERENCE]
# The counter of each basis, for a sentence naming two or three of them.
COUNTERS = {transactions.TRX_SUMMARY: "performance_schema's transaction summary",
            transactions.INNODB_TRX: "INNODB_METRICS trx_*_commits",
            transactions.EXPLICIT: "Com_commit + Com_rollback: autocommit statements not counted"}


def range_texts(server, sums: dict[str, tuple[int | float, float]]) -> ServerTexts:
    """server_texts() as the range's polls counted TPS (sums: reads.interval_sums of BASIS_SERIES over it), not as
    the latest polls do: a range recorded with a counter off says so after it was turned on. The latest polls'
    where the range holds no poll that says which counter it used."""
    health = health_sources(server)
    now, bases = texts_of(server, health), range_bases(sums)
    if not bases:
        return now
    fix = enable_fix(server, health) if transactions.EXPLICIT in bases else ""
    if len(bases) == 1:
        return now._replace(definition=transactions.DEFINITIONS[bases[0]], title=transactions.CHART_TITLES[bases[0]],
                            basis=bases[0], fix=fix)
    named = [f"{transactions.SHORT[b]} ({COUNTERS[b]})" for b in bases]
    parts = (f"{named[0]} in part of this range and {named[1]} in the rest" if len(named) == 2 else
             f"{named[0]} in part of this range, {named[1]} in another part and {named[2]} in the rest")
    return now._replace(definition=f"TPS counted {parts}", title=transactions.GENERIC_TITLE, basis=None, fix=fix,
                        mixed=True)


def range_bases(sums: dict[str, tuple[int | float, float]]) -> list[str]:
    """The counters the range's tps came from, in transactions.PREFERENCE order. A poll's tps is the delta of the
    first counter it read (collectors.delta.add_aliases), stored beside it under its own name; tps_explicit is
    stored at every poll, so the seconds it covers that no better counter's do were counted by it."""
    ms = {name: round(seconds * 1000) for name, (_total, seconds) in sums.items()}
    better = [b for b in transactions.PREFERENCE if b != transactions.EXPLICIT]
    bases = [b for b in better if ms.get(b, 0) > 0]
    # min(): a poll whose better counter had no delta (just turned on) stored tps_explicit but no tps.
    explicit = min(ms.get(transactions.EXPLICIT, 0), ms.get(TPS, 0)) - sum(ms.get(b, 0) for b in better)
    return bases + [transactions.EXPLICIT] * (explicit > 0)


PERFORMANCE_SCHEMA = "var:performance_schema"  # the variables source's reading, stored when it changes


def enable_fix(server, sources: dict) -> str:
    """What turns on a counter of every transaction on this server, given its health row's sources."""
    return transactions.enable_hint(server.flavor, parse_version(server.version or ""),
                                    performance_schema_on(server, sources),
                                    transactions.refused_of(sources.get("global_status")))


def performance_schema_on(server, sources: dict) -> bool:
    """As the latest poll found it: it marks pfs_waits "off" only when performance_schema is OFF
    (collectors.source.require_performance_schema). A poll that read nothing (the server down, a wrong password)
    says nothing of it: then the setting as last read, so that a server down does not get a runtime statement its
    performance_schema cannot run."""
    status = status_of(sources.get("pfs_waits") or {"ok": True})
    if status in (OK, OFF):
        return status == OK
    last = query.latest([server.pk], [PERFORMANCE_SCHEMA]).get((server.pk, PERFORMANCE_SCHEMA))
    return last is None or bool(last[1])


INSTRUMENT_GAUGES = [gauge + family for gauge in (wait_instruments.OFF_GAUGE, wait_instruments.ALL_GAUGE)
                     for family in weakened.WAIT_FAMILIES]


def waits_note(server_id: int, start: datetime, end: datetime) -> str:
    """Which wait instruments the range's polls found off (the gauges wait_instruments stores), and how to turn them on;
    "" when none was. A range before the instruments went off, or after they came back on, says nothing."""
    return note_of(families_off(server_id, start, end))


def note_of(off: dict[str, str]) -> str:
    """waits_note() of families_off()'s answer, for a page that also asks which families are off."""
    return "; ".join(off.values())


def families_off(server_id: int, start: datetime, end: datetime) -> dict[str, str]:
    """The wait families (weakened.WAIT_FAMILIES) with instruments off in the range's polls, each with what
    waits_note() says of it."""
    found = {s.metric: [v for v in s.values if v is not None]
             for s in query.series([server_id], INSTRUMENT_GAUGES, start, end, max_points=200)}
    said = {}
    for family in weakened.WAIT_FAMILIES:
        off = found.get(wait_instruments.OFF_GAUGE + family) or [0]
        if max(off) > 0:
            total = max(found.get(wait_instruments.ALL_GAUGE + family) or off)
            lost = weakened.family_off(family, int(max(off)), int(total), info_of(server_id))
            during = "in every poll of this range" if min(off) > 0 else "in part of this range"
            said[family] = f"{lost.setting} off {during}: {lost.lost}; {lost.fix}"
    return said


def info_of(server_id: int) -> ServerInfo | None:
    """The server's flavor and version as last detected, for the words that differ by version (MySQL 5.5 has no
    option-file line for an instrument); None where no poll detected them."""
    found = Server.objects.filter(pk=server_id).values_list("flavor", "version").first()
    if found is None or not found[0] or parse_version(found[1]) == (0, 0, 0):
        return None
    return ServerInfo(found[0], found[1], parse_version(found[1]), True)


STATEMENT_GAUGES = [statements_source.CONSUMER_OFF + name for name in statements_source.CONSUMERS] + [
    statements_source.INSTRUMENTS_OFF, statements_source.INSTRUMENTS_ALL]


def statements_note(server_id: int, start: datetime, end: datetime) -> str:
    """Which consumers and statement instruments the range's digest reads found off (the gauges the statements
    source stores at every read), and how to turn them on; "" when none was."""
    found = {s.metric: [v for v in s.values if v is not None]
             for s in query.series([server_id], STATEMENT_GAUGES, start, end, max_points=200)}
    lines = []
    consumers = [name for name in statements_source.CONSUMERS
                 if max(found.get(statements_source.CONSUMER_OFF + name) or [0]) > 0]
    if consumers:
        every = all(min(found[statements_source.CONSUMER_OFF + name]) > 0 for name in consumers)
        config = " ".join(f"performance-schema-consumer-{name.replace('_', '-')}=ON" for name in consumers)
        lines.append(f"the performance_schema consumer{'s' if len(consumers) > 1 else ''} {' and '.join(consumers)} "
                     f"off {'in every read of this range' if every else 'in part of this range'}: the digest table "
                     f"does not count the statements run while it is off; run {statements_source.CONSUMER_FIX} "
                     f"(and add {config} to the server configuration)")
    off = found.get(statements_source.INSTRUMENTS_OFF) or [0]
    if max(off) > 0:
        total = max(found.get(statements_source.INSTRUMENTS_ALL) or off)
        lines.append(f"{max(off):.0f} of {total:.0f} statement/% instruments (enabled and timed) off "
                     f"{'in every read of this range' if min(off) > 0 else 'in part of this range'}: statements of "
                     f"those instruments are not counted, or not timed; run {statements_source.INSTRUMENTS_FIX} "
                     "(and add performance-schema-instrument='statement/%=ON' to the server configuration)")
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
    return TpsBasis(transactions.SHORT[basis], transactions.definition(status), explicit,
                    enable_fix(server, sources) if explicit else "")


def range_basis(server, sums: dict[str, tuple[int | float, float]]) -> TpsBasis | None:
    """tps_basis_of() as a range's polls counted TPS (sums as range_texts() takes them): a run recorded with a
    counter off keeps its words after the counter was turned on. The latest polls' where no poll of it says."""
    bases = range_bases(sums)
    if not bases:
        return tps_basis_of(server, health_sources(server))
    explicit = transactions.EXPLICIT in bases
    fix = enable_fix(server, health_sources(server)) if explicit else ""
    if len(bases) == 1:
        return TpsBasis(transactions.SHORT[bases[0]], transactions.DEFINITIONS[bases[0]], explicit, fix)
    return TpsBasis("counted two ways", range_texts(server, sums).definition, explicit, fix)


def counted_basis(sums: dict[str, tuple[int | float, float]], latest: TpsBasis | None) -> TpsBasis | None:
    """range_basis() without its fix (no read): how a run's polls counted TPS, for a table's few words; `latest`
    (tps_bases) where none of them says."""
    bases = range_bases(sums)
    if not bases:
        return latest
    explicit = transactions.EXPLICIT in bases
    if len(bases) == 1:
        return TpsBasis(transactions.SHORT[bases[0]], transactions.DEFINITIONS[bases[0]], explicit)
    named = " and ".join(f"{transactions.SHORT[b]} ({COUNTERS[b]})" for b in bases)
    return TpsBasis("counted two ways", f"TPS counted {named}, each in part of the run", explicit)


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
