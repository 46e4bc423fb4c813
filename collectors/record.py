"""Recording a batch of polls: samples to the store, health and history rows, detected versions.

A few statements per batch whatever its size, so the database is not the bottleneck at fleet scale.
"""

import logging

from django.db import IntegrityError, InterfaceError, OperationalError
from psycopg.types.json import Jsonb

from collectors.delta import json_bytes
from collectors.holders import record_holders
from collectors.models import HISTORY_SLOTS, PollRecord, ServerHealth
from collectors.results import PollResult
from collectors.statement_record import record_statements
from servers.models import Server
from store import one_statement
from store.binary_params import fetch_all
from store.ingest import write_samples as store_write
from store.outage import OutageLog

log = logging.getLogger(__name__)

HEALTH_UNRECORDED = OutageLog(
    log, "health of polls not recorded: PostgreSQL unreachable ({reason}); polls since the last line: {counted}"
         " (their samples wait in the store's Redis buffer; said once a minute while it lasts)",
    "health of polls recorded again: PostgreSQL answers")

HEALTH = ServerHealth._meta.db_table
SERVERS = Server._meta.db_table
HISTORY = PollRecord._meta.db_table
# One statement per batch over one JSON document of its rows, no model instances: the ORM cost 0.35 ms a poll
# (docs/sources.md), and eleven binary arrays dumped element by element by psycopg cost more than one orjson
# document; each history row takes its server's next ring slot from the health upsert's count.
# The entries of sources a server no longer has (its node_exporter URL removed: "forget") go in the same update,
# not a statement of their own a batch. A source's "worked" stays true once it ran ok on the server (an entry of
# before it was kept counts by its "ok"): an alert tells a source that went off from one the server's
# configuration never provided.
UPSERT_HEALTH_AND_HISTORY = f"""
WITH t AS (
    SELECT * FROM jsonb_to_recordset(%b::jsonb)
        AS t(id bigint, at timestamptz, success timestamptz, failures int, error text, src jsonb, duration float8,
             lag float8, due timestamptz, ok bool, history_src jsonb, forget text[])
), h AS (
    INSERT INTO {HEALTH} AS h (server_id, last_poll_at, last_success_at, consecutive_failures, last_error,
                               sources, polls, last_duration_ms, last_lag_ms)
    SELECT id, at, success, failures, error, src, 1, duration, lag FROM t
    WHERE EXISTS (SELECT 1 FROM {SERVERS} s WHERE s.id = t.id)  -- a server deleted since its poll has no rows
    ON CONFLICT (server_id) DO UPDATE SET
        last_poll_at = EXCLUDED.last_poll_at,
        last_success_at = COALESCE(EXCLUDED.last_success_at, h.last_success_at),
        consecutive_failures = CASE WHEN EXCLUDED.consecutive_failures = 0 THEN 0 ELSE h.consecutive_failures + 1 END,
        last_error = EXCLUDED.last_error,
        sources = (h.sources - (SELECT t.forget FROM t WHERE t.id = h.server_id)) || COALESCE((
            SELECT jsonb_object_agg(k, CASE WHEN 'true' IN (h.sources -> k ->> 'worked', h.sources -> k ->> 'ok')
                                            THEN v || jsonb_build_object('worked', true) ELSE v END)
            FROM jsonb_each(EXCLUDED.sources) AS e(k, v)), '{{}}'::jsonb),
        polls = h.polls + 1,
        last_duration_ms = EXCLUDED.last_duration_ms,
        last_lag_ms = EXCLUDED.last_lag_ms
    RETURNING server_id, polls
)
INSERT INTO {HISTORY} (server_id, slot, started_at, due_at, lag_ms, duration_ms, ok, error, sources)
SELECT t.id, h.polls %% {HISTORY_SLOTS}, t.at, t.due, t.lag, t.duration, t.ok, t.error, t.history_src
FROM t JOIN h ON h.server_id = t.id
ON CONFLICT (server_id, slot) DO UPDATE SET
    started_at = EXCLUDED.started_at, due_at = EXCLUDED.due_at, lag_ms = EXCLUDED.lag_ms,
    duration_ms = EXCLUDED.duration_ms, ok = EXCLUDED.ok, error = EXCLUDED.error, sources = EXCLUDED.sources
"""

def record(servers: list, results: list[PollResult]) -> None:
    if not results:
        return
    store_error = write_samples([s for r in results for s in r.samples])
    try:
        update_health_and_history(results, store_error)
        update_versions(servers, results)
        record_holders(results)
        record_statements(results)
    except (OperationalError, InterfaceError) as exc:  # the samples are in the store's buffer already
        HEALTH_UNRECORDED.down(exc, len(results))
    else:
        HEALTH_UNRECORDED.up()


def write_samples(samples: list) -> str:
    """Hand the samples to the store; an error here is reported on every poll of the batch."""
    if not samples:
        return ""
    try:
        store_write(samples)
    except Exception as exc:  # noqa: BLE001 - the health rows must still say what happened
        log.exception("writing %d samples failed", len(samples))
        return f"store: writing samples failed ({type(exc).__name__}: {exc}); they are lost for this poll"
    return ""


def update_health_and_history(results: list[PollResult], store_error: str) -> None:
    """One statement for the batch's health rows (the counts and merges done by PostgreSQL) and its history
    rows, each into its server's next ring slot."""
    upsert_live([json_row(r, store_error) for r in results])


def json_row(r: PollResult, store_error: str) -> dict:
    """A poll's row of the upsert's JSON document (its times as ISO text)."""
    at = r.started_at.isoformat()
    return {"id": r.server_id, "at": at, "success": at if r.ok else None, "failures": 0 if r.ok else 1,
            "error": errors(r, store_error), "src": health_entries(r, at), "duration": ms(r.duration_ms),
            "lag": ms(r.lag_ms), "due": None if r.due_at is None else r.due_at.isoformat(),
            "ok": bool(r.ok and not store_error),
            "history_src": {s.name: {"status": s.status, "ok": s.ok, "error": s.error,
                                     "duration_ms": round(s.duration_ms, 3)} for s in r.sources},
            "forget": r.unconfigured}


def health_entries(result: PollResult, at: str) -> dict:
    """at: when the poll started, as ISO text."""
    return {s.name: s.health(at) for s in result.sources}


# A server deleted between the upsert's snapshot and its foreign key check fails the statement: again, it is
# left out (inside a caller's transaction each try has its own savepoint, so that transaction survives the failed
# one; in autocommit the statement is its own transaction: store.one_statement).
TRIES = 3


def upsert_live(rows: list[dict]) -> None:
    # orjson (delta.json_bytes): the rows' times are ISO text, which its fallback to the standard encoder takes too.
    params = [Jsonb(rows, dumps=json_bytes)]
    for attempt in range(TRIES):
        try:
            with one_statement.alone():
                fetch_all(UPSERT_HEALTH_AND_HISTORY, params)
            return
        except IntegrityError:
            if attempt == TRIES - 1:
                raise
            log.info("a server of the batch was deleted while its health was written: written again without it")


def ms(value: float | None) -> float | None:
    """A float8 in the JSON rows: an int 0 is written as 0.0, as a float8 reads it."""
    return None if value is None else float(value)


def errors(result: PollResult, store_error: str) -> str:
    return "; ".join(e for e in (result.error, store_error) if e)


def update_versions(servers: list, results: list[PollResult]) -> None:
    """Keep Server.flavor/version as detected (only when they change)."""
    by_id = {s.id: s for s in servers}
    for result in results:
        server, info = by_id.get(result.server_id), result.info
        if server is None or info is None:
            continue
        if (server.flavor, server.version) != (info.flavor, info.version):
            Server.objects.filter(pk=server.id).update(flavor=info.flavor, version=info.version)
            server.flavor, server.version = info.flavor, info.version
