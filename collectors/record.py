"""Recording a batch of polls: samples to the store, health and history rows, detected versions.

A few statements per batch whatever its size, so the database is not the bottleneck at fleet scale.
"""

import logging

from django.db import InterfaceError, OperationalError

from collectors.holders import record_holders
from collectors.models import HISTORY_SLOTS, PollRecord, ServerHealth
from collectors.results import PollResult
from monitor.models import Server
from store.ingest import write_samples as store_write

log = logging.getLogger(__name__)

HEALTH_FIELDS = ["last_poll_at", "last_success_at", "consecutive_failures", "last_error", "sources", "polls",
                 "last_duration_ms", "last_lag_ms"]
RECORD_FIELDS = ["started_at", "due_at", "lag_ms", "duration_ms", "ok", "error", "sources"]


def record(servers: list, results: list[PollResult]) -> None:
    if not results:
        return
    store_error = write_samples([s for r in results for s in r.samples])
    try:
        healths = update_health(results, store_error)
        write_history(results, healths, store_error)
        update_versions(servers, results)
        record_holders(results)
    except (OperationalError, InterfaceError) as exc:  # the samples are in the store's buffer already
        log.warning("health of %d polls not recorded: PostgreSQL unreachable (%s)", len(results), exc)


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


def update_health(results: list[PollResult], store_error: str) -> dict[int, ServerHealth]:
    ids = [r.server_id for r in results]
    existing = {h.server_id: h for h in ServerHealth.objects.filter(server_id__in=ids)}
    healths = {}
    for result in results:
        health = existing.get(result.server_id) or ServerHealth(server_id=result.server_id)
        apply_result(health, result, store_error)
        healths[result.server_id] = health
    ServerHealth.objects.bulk_create(list(healths.values()), update_conflicts=True,
                                     unique_fields=["server"], update_fields=HEALTH_FIELDS)
    return healths


def apply_result(health: ServerHealth, result: PollResult, store_error: str) -> None:
    health.last_poll_at = result.started_at
    health.polls += 1
    health.last_duration_ms = result.duration_ms
    health.last_lag_ms = result.lag_ms
    sources = dict(health.sources or {})
    sources.update({s.name: s.health(result.started_at) for s in result.sources})
    health.sources = sources
    if result.ok:
        health.last_success_at = result.started_at
        health.consecutive_failures = 0
    else:
        health.consecutive_failures += 1
    health.last_error = "; ".join(e for e in (result.error, store_error) if e)


def write_history(results: list[PollResult], healths: dict[int, ServerHealth], store_error: str) -> None:
    rows = [
        PollRecord(server_id=r.server_id, slot=healths[r.server_id].polls % HISTORY_SLOTS,
                   started_at=r.started_at, due_at=r.due_at, lag_ms=r.lag_ms, duration_ms=r.duration_ms,
                   ok=r.ok and not store_error, error="; ".join(e for e in (r.error, store_error) if e),
                   sources={s.name: {"ok": s.ok, "error": s.error, "duration_ms": round(s.duration_ms, 3)}
                            for s in r.sources})
        for r in results
    ]
    PollRecord.objects.bulk_create(rows, update_conflicts=True, unique_fields=["server", "slot"],
                                   update_fields=RECORD_FIELDS)


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
