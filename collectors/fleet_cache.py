"""The server registry as the collectors last read it, kept in Redis for when PostgreSQL is away.

Dispatch and polls read the registry from PostgreSQL and copy it here; if
PostgreSQL cannot be reached they go on with this copy, so samples keep coming
(into the store's Redis buffer) through an outage. The copy holds the password
as stored (Fernet-encrypted), never in clear.
"""

import json
import logging

from django.db import DatabaseError, InterfaceError, OperationalError, connection

from collectors import state
from collectors.registry_outage import OUTAGE
from servers.models import Server

log = logging.getLogger(__name__)

KEY = "collectors:registry"
FIELDS = ("id", "name", "host", "port", "socket", "user", "password_encrypted", "tls_mode", "tls_ca", "tls_cert",
          "tls_key", "poll_interval", "enabled", "flavor", "version", "node_exporter_url", "pinned_kind",
          "pinned_sha256", "pinned_key", "statements_interval")
DB_DOWN = (OperationalError, InterfaceError)
# Each enabled server's id, interval and row version (every update of a row writes a new version: another
# ctid, and another xmin from another transaction): read every second, the whole rows only when this changed
# (2,500 model rows and their JSON were 57 ms of CPU a tick).
ENABLED_SQL = (f"SELECT id, poll_interval, xmin::text, ctid::text FROM {Server._meta.db_table}"
               " WHERE enabled ORDER BY id")

# A batch's servers by one plain statement: the ORM's query building and whole rows were 1 ms of CPU a batch of 25.
# Columns in the model's order, as Model.from_db() takes them.
BATCH_FIELDS = tuple(f.attname for f in Server._meta.concrete_fields if f.attname in FIELDS)
BATCH_SQL = (f"SELECT {', '.join(map(connection.ops.quote_name, BATCH_FIELDS))} FROM {Server._meta.db_table}"
             " WHERE id = ANY(%s) AND enabled")


class NoRegistry(DatabaseError):
    """PostgreSQL is unreachable and no copy of the registry was ever kept."""


_kept: list | str = ""  # the ENABLED_SQL rows of this process's last copy ("": none kept yet)


def enabled_intervals() -> list[tuple[int, int]]:
    """(id, poll interval) of the enabled servers, from PostgreSQL if it answers, else from the last copy."""
    global _kept
    try:
        with connection.cursor() as cur:
            cur.execute(ENABLED_SQL)
            rows = cur.fetchall()
        if rows != _kept and keep(list(Server.objects.filter(enabled=True).only(*FIELDS))):
            _kept = rows
        OUTAGE.up()
    except DB_DOWN as exc:
        return [(s.id, s.poll_interval) for s in cached(exc)]
    return [(server_id, interval) for server_id, interval, *_version in rows]


def servers_by_id(ids: list[int]) -> list[Server]:
    """These servers if still enabled (a batch's servers, with the fields the copy keeps), from PostgreSQL
    or the last copy."""
    try:
        with connection.cursor() as cur:
            cur.execute(BATCH_SQL, [list(ids)])
            servers = [Server.from_db(connection.alias, BATCH_FIELDS, row) for row in cur.fetchall()]
        OUTAGE.up()
        return servers
    except DB_DOWN as exc:
        wanted = set(ids)
        return [s for s in cached(exc) if s.id in wanted]


def keep(servers: list[Server]) -> bool:
    """Copy the registry to Redis; False if that failed (tried again at the next read)."""
    text = json.dumps([{name: getattr(s, name) for name in FIELDS} for s in servers])
    try:
        state.client().set(KEY, text)
    except Exception as exc:  # noqa: BLE001 - polling goes on; only the outage copy is stale
        log.warning("collectors: cannot keep the registry copy in Redis (%s)", exc)
        return False
    return True


def cached(exc: Exception) -> list[Server]:
    raw = state.client().get(KEY)
    if raw is None:
        raise NoRegistry(f"PostgreSQL is unreachable ({exc}) and no copy of the server registry was kept") from exc
    OUTAGE.down(exc)
    return [Server(**row) for row in json.loads(raw)]
