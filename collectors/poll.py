"""One poll of one server: run the due sources and turn their readings into samples.

poll_target() talks to MySQL and Redis only (safe in worker threads); collectors.batch
polls many servers at once and collectors.record writes what they got.
"""

import logging
import time
from datetime import UTC, datetime

import pymysql

from collectors import delta, registry, schedule, setup_changes, shared_read, snapshots
from collectors.connection import GUARD_TIME_LIMIT_S, ConnectError, ServerInfo
from collectors.http_poll import run_http_sources
from collectors.outcome import failed, succeeded
from collectors.pool import POOL, Pooled, Target, is_connection_error, recheck_basis
from collectors.probe import NEEDED, grant_statement, needed
from collectors.results import PollResult, SourceResult
from collectors.shared_read import NOT_SHARED, Shared
from collectors.source import Reading, Source, SourceError, SourceUnavailable
from collectors.status import CONNECTION_LOST, NOT_POLLED, OFF, UNSUPPORTED

log = logging.getLogger(__name__)

MAX_EARLY = 2.0  # seconds a claimed poll may wait for its due time
PRIVILEGE_ERRORS = (1044, 1142, 1227, 1143)  # access denied to a database / table / statement / column
INTERRUPTED = (1969, 3024)  # MariaDB max_statement_time, MySQL MAX_EXECUTION_TIME exceeded


def is_due(source: Source, poll_interval: int, last_attempt: float | None, now: float,
           target: Target | None = None, slot_at: float | None = None) -> bool:
    """Whether the poll at now (due at slot_at) reads this source.

    Half an interval of slack: a poll that starts a little early must not skip a cheap source.
    A server's first poll reads every source (it tells at once what works there); after that
    a slower source waits for the server's turn (schedule.in_turn): a missed turn is made up
    at the next poll, and the turns after it are kept even if the next one comes sooner.
    The source's interval follows the server's flavor and version as last detected, and its
    quiet interval where its last reading found nothing (no replication channel).
    """
    if last_attempt is None:
        return True
    every = source.interval_for(poll_interval, *((target.flavor, target.version) if target else ()))
    if source.interval_of is not None and target is not None:
        every = max(poll_interval, source.interval_of(target))
    if source.quiet_interval and target is not None and schedule.is_quiet(target.server_id, source.name):
        every = max(every, source.quiet_interval)
    if every <= poll_interval:
        return now - last_attempt >= poll_interval / 2
    server_id = target.server_id if target else 0
    turn = schedule.in_turn(server_id, source.name, every, poll_interval, now if slot_at is None else slot_at)
    since = now - last_attempt
    return since >= every + poll_interval or (turn and since >= poll_interval / 2)


def due_sources(poll_interval: int, attempts: dict[str, float], now: float,
                only: list[str] | None = None, target: Target | None = None,
                slot_at: float | None = None) -> list[Source]:
    """The sources to run now; a source this server has nothing for (no node_exporter URL) is never due."""
    if only:
        return [registry.get(name) for name in only]
    return [s for s in registry.all_sources()
            if (target is None or s.configured(target))
            and is_due(s, poll_interval, attempts.get(s.name), now, target, slot_at)]


def poll_target(target: Target, poll_interval: int, due_at: datetime | None = None,
                only: list[str] | None = None, *, saved: snapshots.Saved) -> PollResult:
    """Poll one server when due (now if due_at is past or None): no ORM access, so many can run in threads.

    The caller has its saved snapshots (a batch loads them from Redis at once, the standalone
    collector keeps them in memory) and saves the new ones this leaves on the result.
    """
    wait_until_due(due_at)
    start = time.time()
    result = PollResult(target.server_id, target.name, datetime.fromtimestamp(start, UTC), due_at)
    previous, attempts = saved
    slot_at = due_at.timestamp() if due_at is not None else None
    sources = due_sources(poll_interval, attempts, start, only, target, slot_at)
    result.unconfigured = [s.name for s in registry.all_sources() if not s.configured(target)]
    if not sources:  # not a poll: nothing to record, the failure count stays as it is
        result.skipped = "no source is due yet"
        return result
    result.snapshots = run_sources(target, sources, previous, result)
    result.attempts = {r.name: time.time() for r in result.sources}
    result.duration_ms = (time.time() - start) * 1000
    return result


def wait_until_due(due_at: datetime | None) -> None:
    # The dispatcher claims a tick ahead; a poll must not start before its time. One that is due already (most:
    # the due pool hands them over on time) does not sleep(0), which cost 17 us of CPU a poll (a system call).
    ahead = 0.0 if due_at is None else due_at.timestamp() - time.time()
    if ahead > 0:
        time.sleep(min(MAX_EARLY, ahead))


def run_sources(target: Target, sources: list[Source], previous: dict[str, delta.Snapshot],
                result: PollResult) -> dict[str, delta.Snapshot]:
    """Each kind of source through its runner: a MySQL server that cannot be reached leaves its host's agent read."""
    new_snapshots = {}
    for kind, runner in RUNNERS.items():
        group = [s for s in sources if s.kind == kind]
        if group:
            new_snapshots.update(runner(target, group, previous, result))
    return new_snapshots


def run_sql_sources(target: Target, sources: list[Source], previous: dict[str, delta.Snapshot],
                    result: PollResult) -> dict[str, delta.Snapshot]:
    entry: Pooled | None
    try:
        entry = POOL.get(target)
    except (ConnectError, OSError, pymysql.MySQLError) as exc:
        result.connect_error = f"{target.name}: {exc}"
        result.sources = [SourceResult(s.name, NOT_POLLED, error=f"{target.name}: {s.name}: not polled, "
                                       f"cannot connect ({exc})") for s in sources]
        return {}
    setup_changes.poll_started(entry.conn)
    shared = shared_read.read(entry.conn, entry.info, sources)  # first: it may bring the setup sums the re-check reads
    try:
        recheck_basis(entry)
    except (pymysql.MySQLError, OSError):
        pass  # a broken connection: the sources below find it and reconnect
    result.connected_now, result.info = not entry.reused, entry.info
    new_snapshots: dict[str, delta.Snapshot] = {}
    readings: dict[str, Reading] = {}
    checked = not entry.reused  # the server info was read on this connection during this poll
    restart_seen = False  # an earlier source of this poll found the server restarted
    for index, source in enumerate(sources):
        assert entry is not None  # the loop ends when the connection is gone
        prev = previous.get(source.name)
        if restart_seen and prev is not None:
            prev = delta.from_before_restart(prev)
        outcome, snapshot, entry = run_one(target, source, entry, prev, readings, shared)
        if outcome.unavailable and entry is not None and not checked:
            # Maybe told by stale info (the server restarted with other settings): read it again, once.
            entry, checked = refresh(target, entry), True
            if entry is None:
                outcome = SourceResult(source.name, CONNECTION_LOST, error=f"{target.name}: {source.name}: "
                                       "not polled, the connection was lost and could not be reopened")
            else:
                outcome, snapshot, entry = run_one(target, source, entry, prev, readings)
        restart_seen = restart_seen or delta.is_restart(outcome.reset)
        checked = checked or (entry is not None and (not entry.reused or not outcome.unavailable))
        result.sources.append(outcome)
        if snapshot is not None:
            new_snapshots[source.name] = snapshot
        if entry is None:  # the connection is gone and could not be reopened
            for rest in sources[index + 1:]:
                result.sources.append(SourceResult(rest.name, CONNECTION_LOST, error=f"{target.name}: {rest.name}: "
                                                   "not polled, the connection was lost earlier in this poll"))
            break
        result.info = entry.info
    if entry is not None:
        POOL.put(target, entry)
    return new_snapshots


def refresh(target: Target, entry: Pooled) -> Pooled | None:
    """The entry with its server info read again (reconnected if the connection broke), None if unreachable."""
    try:
        return POOL.refresh(target, entry)
    except (ConnectError, OSError, pymysql.MySQLError):
        return None


def run_one(target: Target, source: Source, entry: Pooled, previous: delta.Snapshot | None,
            readings: dict[str, Reading], shared: Shared = NOT_SHARED,
            ) -> tuple[SourceResult, delta.Snapshot | None, Pooled | None]:
    """Run one source (adding its reading to the poll's readings); a connection that broke on
    reuse (e.g. a restart) is reopened once."""
    reason = source.unsupported_reason(entry.info)
    if reason:
        return SourceResult(source.name, UNSUPPORTED, error=f"{target.name}: {source.name}: {reason}"), None, entry
    t0 = time.perf_counter() - shared.seconds_each(source.name)  # its part of the shared statement
    try:
        reading = read(source, entry, readings, shared.texts_of(source, entry.info), previous)
    except SourceUnavailable as exc:
        return failed(target, source, t0, str(exc), status=OFF), None, entry
    except SourceError as exc:
        return failed(target, source, t0, str(exc)), None, entry
    except (pymysql.MySQLError, OSError) as exc:
        if not is_connection_error(exc):
            return failed(target, source, t0, describe(exc, entry.info, target.user)), None, entry
        POOL.discard(target.server_id, entry)
        if not entry.reused:
            return failed(target, source, t0, f"connection lost: {describe(exc)}"), None, None
        try:
            entry = POOL.get(target)
        except Exception as again:  # noqa: BLE001 - any failure to reconnect ends this poll
            # The server went away, not the source: the unreachable rule speaks for it, a source alert would not.
            return failed(target, source, t0, f"connection lost and reconnect failed: {again}",
                          status=CONNECTION_LOST), None, None
        return run_one(target, source, entry, previous, readings, shared)
    except Exception as exc:  # noqa: BLE001 - a parser bug in one source must not stop the others
        log.exception("source %s failed on %s", source.name, target.name)
        return failed(target, source, t0, f"{type(exc).__name__}: {exc}"), None, entry
    readings[source.name] = reading
    if source.quiet_interval:
        schedule.note_quiet(target.server_id, source.name, reading.quiet)
    outcome, snapshot, change = succeeded(target, source, reading, previous, entry.boot, t0)
    if delta.is_restart(change.reset) and entry.reused:
        fresh = refresh(target, entry)  # same connection, restarted server (a proxy in between)
        if fresh is not None:
            snapshot.boot = fresh.boot  # the next reading compares with the new boot time
        return outcome, snapshot, fresh
    return outcome, snapshot, entry


def read(source: Source, entry: Pooled, readings: dict[str, Reading], texts: tuple | None = None,
         previous: delta.Snapshot | None = None) -> Reading:
    """From this poll's earlier readings, else from its texts of the shared statement, else its own statement."""
    found = source.derive(readings, entry.info) if source.derive else None
    if found is None and texts is not None and source.from_shared:
        found = source.from_shared(texts, entry.conn, entry.info)
    if found is not None:
        return found
    if source.since:  # it reads only what moved since its previous read
        return source.collect(entry.conn, entry.info, previous)
    return source.collect(entry.conn, entry.info)


def describe(exc: Exception, info: ServerInfo | None = None, user: str = "user") -> str:
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    text = exc.args[-1] if exc.args else str(exc)
    if code in PRIVILEGE_ERRORS:
        return f"missing privilege ({text}); {grants_hint(info, user)}"
    if code == 2013:
        return "timed out waiting for the server to answer (or the connection was lost)"
    if code in INTERRUPTED:  # the session guard of collectors.connection, not the server's own setting
        return (f"stopped after {GUARD_TIME_LIMIT_S} s by the monitor's own time limit on each of its statements,"
                " which keeps it from loading the server: this poll has no reading from it, the next poll reads"
                f" it again ({text})")
    return f"error {code}: {text}" if code else str(text)


ANY_VERSION = ServerInfo("mysql", "", (0, 0, 0), True)  # not detected: the names every version takes


def grants_hint(info: ServerInfo | None, user: str) -> str:
    """What the monitoring user needs, spelled as docs/privileges.md grants it on this server's version
    (MariaDB 10.5+: BINLOG MONITOR, SLAVE MONITOR), for the account the poll logs in as."""
    grants = grant_statement(list(needed(info) if info else NEEDED), f"'{user}'@'%'", info or ANY_VERSION)
    return f"grant the monitoring user (the host part as you created it): {grants} (docs/privileges.md)"


RUNNERS = {"mysql": run_sql_sources, "http": run_http_sources}
