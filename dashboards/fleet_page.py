"""One page of the fleet overview: the whole fleet ordered and counted from a light read of every server,
the full rows and their figures read for the servers of the page only."""

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.utils import timezone

from alerts.status import firing_for_servers
from dashboards.analysis.fleet_state import server_state
from dashboards.fleet_rows import FleetRow, health_of, rank, with_figures
from dashboards.url_ids import parse_id
from servers.models import Server

# 1,000 servers are ten pages, each answered about as fast as a fleet of 100.
PER_PAGE = 100
# What a server's state needs (no health sources: they only say why an up server's sources fail).
LIGHT = ("pk", "name", "tags", "enabled", "poll_interval", "health__last_poll_at", "health__last_success_at",
         "health__consecutive_failures")


@dataclass(frozen=True)
class Standing:
    """A server's place in the fleet: its state's name and the alerts firing on it."""

    pk: int
    name: str
    state: str
    alerts: list[str]


# What server_state() reads of a server and its health row to name the state, from the light read.
@dataclass(frozen=True)
class _Server:
    name: str
    enabled: bool
    poll_interval: int


@dataclass(frozen=True)
class _Health:
    last_poll_at: datetime | None
    last_success_at: datetime | None
    consecutive_failures: int | None
    last_error: str = ""
    sources: None = None


@dataclass
class FleetPage:
    rows: list[FleetRow]  # the servers of this page, worst first, with their figures
    page: Page  # of the fleet's Standings
    counts: dict[str, int]  # servers in each state, over every page
    tags: list[str]  # every tag of the fleet, for the filter


class NoSuchPage(ValueError):
    """The page asked for is not a whole number within the pages: the message says which are."""


def fleet_page(tag: str, conditions: bool, asked: str) -> FleetPage:
    """The page asked for (`asked` as given in the URL) of the servers with that tag (all servers: "")."""
    now = timezone.now()
    light = list(Server.objects.values_list(*LIGHT))
    ordered = standings([r for r in light if tag in r[2]] if tag else light, now)
    pages = Paginator(ordered, PER_PAGE, allow_empty_first_page=True)
    number = parse_id(asked)  # 5,000 digits pass isdigit() but not int()
    if number is None or not 1 <= number <= pages.num_pages:
        raise NoSuchPage(f"page: a whole number from 1 to {pages.num_pages}, not {asked[:40]!r}")
    page = pages.page(number)
    rows = full_rows(list(page.object_list), now)
    with_figures(rows, conditions, now)
    return FleetPage(rows, page, counts(ordered), sorted({t for r in light for t in r[2]}))


def standings(light: list[tuple], now: datetime) -> list[Standing]:
    """Every server's state and alerts, in the fleet's order (fleet_rows.rank: worst first)."""
    alerts = firing_for_servers([r[0] for r in light])
    found = [Standing(pk, name, server_state(_Server(name, enabled, interval), _Health(*health), now).name,
                      alerts.get(pk, [])) for pk, name, _tags, enabled, interval, *health in light]
    return sorted(found, key=lambda s: rank(s.state, s.alerts, s.name))


def full_rows(shown: list[Standing], now: datetime) -> list[FleetRow]:
    """The page's rows with their servers and states in full (the state's why), in the standings' order."""
    servers = Server.objects.select_related("health").in_bulk([s.pk for s in shown])
    return [FleetRow(servers[s.pk], server_state(servers[s.pk], health_of(servers[s.pk]), now), s.alerts)
            for s in shown if s.pk in servers]  # one deleted since the light read is left out


def counts(ordered: list[Standing]) -> dict[str, int]:
    """How many servers are in each state, in the fleet's order."""
    found: dict[str, int] = {}
    for s in ordered:
        found[s.state] = found.get(s.state, 0) + 1
    return found
