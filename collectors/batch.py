"""A batch of polls: lock the servers, poll them concurrently, save their snapshots, record the results.

Redis sees four round trips per batch, not four per server: locks, snapshots, saves, unlocks.
"""

import logging
from datetime import UTC, datetime

from collectors import snapshots, state
from collectors.poll import poll_target
from collectors.pool import Target
from collectors.record import record
from collectors.results import PollResult
from servers.models import Server

log = logging.getLogger(__name__)


def poll_server(server_id: int, only: list[str] | None = None, due_at: datetime | None = None) -> PollResult:
    """Poll one server now (commands and tests): write its samples, record its health."""
    server = Server.objects.get(pk=server_id)
    return poll_servers([server], {server.id: due_at}, only)[0]


def poll_servers(servers: list, due: dict[int, datetime | None], only: list[str] | None = None,
                 executor=None) -> list[PollResult]:
    """Poll servers concurrently (when given an executor), then record all results at once."""
    tokens = state.acquire_locks({s.id: lock_ttl(s.poll_interval) for s in servers})
    try:
        results = poll_locked(servers, {sid for sid, token in tokens.items() if token}, due, only, executor)
        write_polls(servers, results)
    finally:
        state.release_locks({server_id: token for server_id, token in tokens.items() if token})
    return results


def poll_locked(servers: list, locked: set[int], due: dict[int, datetime | None], only: list[str] | None,
                executor=None) -> list[PollResult]:
    """Poll the servers this batch holds the lock of; the others' results say they were skipped."""
    ids = [s.id for s in servers if s.id in locked]
    saved = snapshots.store().load_many(ids) if ids else {}
    jobs: list[tuple] = []
    for server in servers:
        if server.id not in locked:
            jobs.append((server, None))
            continue
        args = (Target.from_server(server), server.poll_interval, due.get(server.id), only, saved[server.id])
        jobs.append((server, executor.submit(due.get(server.id), safe_poll, *args) if executor else safe_poll(*args)))
    return [collect_job(server, job, due.get(server.id)) for server, job in jobs]


def write_polls(servers: list, results: list[PollResult]) -> None:
    """The polls' snapshots to Redis, their samples, health, holders, statements and versions to the databases
    (a server deleted since its poll only loses its own rows)."""
    polled = [r for r in results if not r.skipped]
    staged = stage_snapshots(polled)
    record(servers, polled)
    if staged:  # after the samples: a worker killed while writing them leaves its snapshots staged only
        commit_snapshots(staged)


def stage_snapshots(polled: list[PollResult]) -> list[int]:
    """The batch's new snapshots to Redis, staged (the servers they are of); if that fails, every poll of
    the batch says so."""
    saved = {r.server_id: (r.snapshots, r.attempts) for r in polled if r.attempts}
    try:
        snapshots.store().stage_many(saved, {r.server_id: r.started_at for r in polled})
        return list(saved)
    except Exception as exc:  # noqa: BLE001 - the polls must still be recorded, as failed
        log.exception("saving the snapshots of %d polls failed", len(polled))
        for result in polled:
            result.connect_error = (f"{result.server_name}: the collector failed (saving snapshots: "
                                    f"{type(exc).__name__}: {exc}); the next poll's deltas span both intervals")
        return []


def commit_snapshots(staged: list[int]) -> None:
    """The staged snapshots become the stored ones; if Redis fails here, the next poll's load settles them."""
    try:
        snapshots.store().commit_many(staged)
    except Exception:  # noqa: BLE001 - the polls are recorded; the staged snapshots stay told
        log.exception("committing the snapshots of %d polls failed; the next load settles them", len(staged))


def safe_poll(target: Target, poll_interval: int, due_at: datetime | None, only: list[str] | None,
              saved: snapshots.Saved) -> PollResult:
    """poll_target, with any failure of ours (Redis down, a bug) recorded as this server's poll error."""
    try:
        return poll_target(target, poll_interval, due_at, only, saved=saved)
    except Exception as exc:  # noqa: BLE001 - the other servers of the batch must still be recorded
        log.exception("poll of %s failed", target.name)
        return PollResult(target.server_id, target.name, datetime.now(UTC), due_at,
                          connect_error=f"{target.name}: the collector failed ({type(exc).__name__}: {exc})")


def collect_job(server, job, due_at: datetime | None) -> PollResult:
    if job is None:
        return PollResult(server.id, server.name, datetime.now(UTC), due_at,
                          skipped="a poll of this server is already running")
    return job.result() if hasattr(job, "result") else job


def lock_ttl(poll_interval: int) -> float:
    # Longer than the worst poll (connect + read timeouts, one reconnect), shorter than a stuck worker's life.
    return max(2.0 * poll_interval, 30.0)
