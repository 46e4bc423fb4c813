"""The server registry as the collectors last read it, kept in Redis for when PostgreSQL is away.

Dispatch and polls read the registry from PostgreSQL and copy it here; if
PostgreSQL cannot be reached they go on with this copy, so samples keep coming
(into the store's Redis buffer) through an outage. The copy holds the password
as stored (Fernet-encrypted), never in clear.
"""

import json
import logging

from django.db import DatabaseError, InterfaceError, OperationalError

from collectors import state
from servers.models import Server

log = logging.getLogger(__name__)

KEY = "collectors:registry"
FIELDS = ("id", "name", "host", "port", "socket", "user", "password_encrypted", "tls_mode", "tls_ca", "tls_cert",
          "tls_key", "poll_interval", "enabled", "flavor", "version", "node_exporter_url", "pinned_kind",
          "pinned_sha256", "pinned_key", "statements_interval")
DB_DOWN = (OperationalError, InterfaceError)


class NoRegistry(DatabaseError):
    """PostgreSQL is unreachable and no copy of the registry was ever kept."""


def enabled_servers() -> list[Server]:
    """The enabled servers, from PostgreSQL if it answers, else from the last copy."""
    try:
        servers = list(Server.objects.filter(enabled=True).only(*FIELDS))
    except DB_DOWN as exc:
        return cached(exc)
    keep(servers)
    return servers


def servers_by_id(ids: list[int]) -> list[Server]:
    """These servers if still enabled (a batch's servers), from PostgreSQL or the last copy."""
    try:
        return list(Server.objects.filter(pk__in=ids, enabled=True))
    except DB_DOWN as exc:
        wanted = set(ids)
        return [s for s in cached(exc) if s.id in wanted]


_kept = ""  # this process's last copy: dispatch reads the registry every second, and it rarely changes


def keep(servers: list[Server]) -> None:
    global _kept
    text = json.dumps([{name: getattr(s, name) for name in FIELDS} for s in servers])
    if text == _kept:
        return
    try:
        state.client().set(KEY, text)
        _kept = text
    except Exception as exc:  # noqa: BLE001 - polling goes on; only the outage copy is stale
        log.warning("collectors: cannot keep the registry copy in Redis (%s)", exc)


def cached(exc: Exception) -> list[Server]:
    raw = state.client().get(KEY)
    if raw is None:
        raise NoRegistry(f"PostgreSQL is unreachable ({exc}) and no copy of the server registry was kept") from exc
    log.warning("collectors: PostgreSQL unreachable (%s); polling the registry as last read", exc)
    return [Server(**row) for row in json.loads(raw)]
