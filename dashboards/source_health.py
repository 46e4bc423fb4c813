"""The collectors' last word on one source of a server (ok, error, note): why a page may have nothing to show."""

from django.core.exceptions import ObjectDoesNotExist

from collectors.status import source_error
from servers.models import Server


def source_health(server: Server, name: str) -> dict | None:
    """The source's entry in the server's health row; None before any poll of it."""
    try:
        sources = server.health.sources or {}
    except ObjectDoesNotExist:  # never polled: no health row yet
        return None
    return sources.get(name)


def source_problem(server: Server, name: str) -> str:
    """What the source's latest poll said went wrong (performance_schema OFF, a failure), "" when it ran."""
    return source_error(server.name, name, source_health(server, name))
