"""The collectors' last word on one source of a server (ok, error, note): why a page may have nothing to show."""

from django.core.exceptions import ObjectDoesNotExist

from collectors.status import OK, status_of
from servers.models import Server


def source_health(server: Server, name: str) -> dict | None:
    """The source's entry in the server's health row; None before any poll of it."""
    try:
        sources = server.health.sources or {}
    except ObjectDoesNotExist:  # never polled: no health row yet
        return None
    return sources.get(name)


def source_problem(server: Server, name: str) -> str:
    """What the source's latest poll said went wrong (performance_schema OFF, a failure), "" when it ran; the
    poll's error names the server and the source already."""
    state = source_health(server, name)
    if not state or status_of(state) == OK:
        return ""
    return state.get("error") or f"{server.name}: {name}: failed in its latest poll"


def own_error(server: Server, name: str, state: dict | None) -> str:
    """The source's error without the "server: source: " its poll put in front: for a line that names both."""
    return ((state or {}).get("error") or "").removeprefix(f"{server.name}: {name}: ")
