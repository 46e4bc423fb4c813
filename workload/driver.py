"""The stress driver: N sessions running explicit transactions, optionally one read view held open.

It reports throughput each interval and returns a Summary; it knows nothing of
Django, so tests, the demo and the `stress` command all drive it the same way.
"""

import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymysql

from collectors.connection import ConnectError, describe_error
from workload.measured import Measured
from workload.schema import DEFAULT_ROWS, DEFAULT_SCHEMA, create_schema
from workload.summary import Summary
from workload.target import Target
from workload.transactions import MODES, Transactions

# max_connections' ceiling on MySQL and MariaDB: more sessions could never all connect, and 10^11 of them
# filled memory with their counters (a MemoryError before the first connection).
MAX_SESSIONS = 100_000

# SHOW STATUS history length: printed beside TPS so purge lag shows in the driver's own output.
HISTORY_LENGTH = "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'"
# START TRANSACTION WITH CONSISTENT SNAPSHOT: the read view that keeps purge from going past it.
OPEN_READ_VIEW = "START TRANSACTION WITH CONSISTENT SNAPSHOT"
# SELECT inside the read view: makes the snapshot a real reader, as a long report query would be.
READ_IN_VIEW = "SELECT COUNT(*), SUM(balance) FROM `{schema}`.accounts"
# A global read lock from a connection of its own: every write waits until UNLOCK TABLES, a stall on demand.
STALL = "FLUSH TABLES WITH READ LOCK"
UNSTALL = "UNLOCK TABLES"

ACCESS_DENIED = {1044, 1142, 1143, 1227}  # database, table, column, privilege
PAUSE_POLL_S = 0.5  # how often a paused session, and the pause watcher, look again


class DriverError(Exception):
    """A failure worded for the user: which server, what happened, what to do."""


@dataclass(frozen=True)
class StressOptions:
    mode: str = "mixed"  # ro | rw | mixed
    concurrency: int = 4
    duration: float = 60.0  # seconds; 0 runs until stopped
    think_ms: float = 0.0  # pause of each session between transactions
    hold_trx: float = 0.0  # seconds to keep one read view open (0: none)
    hold_every: float = 0.0  # reopen the read view every so many seconds (0: once)
    stall_every: float = 0.0  # take the global read lock every so many seconds (0: never)
    stall_for: float = 0.0  # ... and hold it this long
    interval: float = 5.0  # seconds between throughput lines
    rows: int = DEFAULT_ROWS
    schema: str = DEFAULT_SCHEMA
    warmup: float = 0.0  # seconds at the start the summary's own after-warm-up figures leave out
    pause_file: str = ""  # while this file exists, no transaction starts and no read view is held

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if self.concurrency < 1 or self.interval <= 0 or self.rows < 1:
            raise ValueError("concurrency, interval and rows must be positive")
        if self.concurrency > MAX_SESSIONS:
            raise ValueError(f"concurrency {self.concurrency}: at most {MAX_SESSIONS:,} sessions, the most "
                             "connections (max_connections) a MySQL or MariaDB server accepts")
        times = {"--duration": self.duration, "--think-ms": self.think_ms, "--hold-trx": self.hold_trx,
                 "--hold-every": self.hold_every, "--warmup": self.warmup, "--stall-every": self.stall_every,
                 "--stall-for": self.stall_for, "--interval": self.interval}
        if odd := [name for name, value in times.items() if not math.isfinite(value)]:
            # nan compares false with every bound below and was taken: a think time of nan ms slept no time
            raise ValueError(f"{', '.join(odd)}: give a number of seconds (milliseconds for --think-ms), not nan "
                             "or an infinity")
        if min(self.duration, self.think_ms, self.hold_trx, self.hold_every, self.warmup) < 0:
            raise ValueError("duration, think time, hold times and warm-up cannot be negative")
        if self.stall_every < 0 or self.stall_for < 0 or (self.stall_every > 0) != (self.stall_for > 0):
            raise ValueError("--stall-every and --stall-for go together, both positive")
        if self.stall_every and self.stall_for >= self.stall_every:
            raise ValueError("--stall-for must be shorter than --stall-every")
        if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", self.schema):
            raise ValueError(f"schema name {self.schema!r}: use letters, digits and _ only")

    def describe(self) -> str:
        text = f"mode={self.mode} concurrency={self.concurrency} think_ms={self.think_ms:g}"
        text += f" duration={self.duration:g}s" if self.duration else " duration=until stopped"
        if self.hold_trx:
            text += f" hold_trx={self.hold_trx:g}s" + (f" every {self.hold_every:g}s" if self.hold_every else "")
        if self.stall_every:
            text += f" stall_for={self.stall_for:g}s every {self.stall_every:g}s"
        return text


def _print(line: str) -> None:
    print(line, flush=True)


class StressDriver:
    def __init__(self, target: Target, options: StressOptions, report: Callable[[str], None] = _print,
                 on_pause: Callable[[bool], None] | None = None):
        self.target = target
        self.options = options
        self.report = report
        self.on_pause = on_pause  # told True when the pause file appears, False when it goes (the run's recorder)
        self.commits = [0] * options.concurrency  # one slot per session: each thread writes only its own
        self.rollbacks = [0] * options.concurrency
        self.measured = [Measured() for _ in range(options.concurrency)]
        self.measure_from = 0.0  # monotonic time the warm-up ends
        self.latencies: list[list[float]] = [[] for _ in range(options.concurrency)]  # seconds, per session
        self.stalls = 0
        self.error = ""
        self._lock = threading.Lock()
        self.paused = threading.Event()  # set while the pause file exists (watched by its own thread)

    def connect(self) -> pymysql.Connection:
        try:
            return self.target.connect()
        except ConnectError as exc:
            raise DriverError(f"server {self.target.name}: {exc}. Check that it is running and reachable, "
                              "then run stress again.") from None

    def prepare(self) -> None:
        """Create the driver's schema; a user that may not write gets told which user to use."""
        conn = self.connect()
        try:
            create_schema(conn, self.options.schema, self.options.rows)
        except pymysql.MySQLError as exc:
            raise DriverError(self._explain(exc)) from None
        finally:
            conn.close()

    def run(self, stop: threading.Event | None = None) -> Summary:
        """Drive the load until the duration is over, `stop` is set, or a session fails."""
        stop = stop or threading.Event()
        holding, stalling = self.options.hold_trx > 0, self.options.stall_every > 0
        probe, *sessions = self._open_connections(1 + self.options.concurrency + holding + stalling)
        threads = [threading.Thread(target=self._session, args=(conn, i, stop), daemon=True, name=f"stress-{i}")
                   for i, conn in enumerate(sessions[:self.options.concurrency])]
        extra = sessions[self.options.concurrency:]
        if holding:
            threads.append(threading.Thread(target=self._hold, args=(extra.pop(0), stop), daemon=True,
                                            name="stress-hold"))
        if self.options.pause_file:
            self._watch_pause(stop)
            threads.append(threading.Thread(target=self._watch, args=(stop,), daemon=True, name="stress-pause"))
        if stalling:
            threads.append(threading.Thread(target=self._stall, args=(extra.pop(0), stop), daemon=True,
                                            name="stress-stall"))
        summary = Summary()
        started = time.monotonic()
        self.measure_from = started + self.options.warmup
        for thread in threads:
            thread.start()
        reached = self._report_until_done(stop, started, summary, probe)
        stop.set()
        for thread in threads:
            thread.join()
        _close(probe)
        summary.elapsed = time.monotonic() - started
        summary.transactions, summary.rollbacks = sum(self.commits), sum(self.rollbacks)
        summary.measured = self._measured(started + summary.elapsed)
        summary.latencies = sorted(t for session in self.latencies for t in session)
        summary.stalls = self.stalls
        summary.error = self.error
        summary.status = "failed" if self.error else "completed" if reached else "interrupted"
        return summary

    def _open_connections(self, count: int) -> list[pymysql.Connection]:
        """All or none: a failure (e.g. max_connections) closes the ones already open."""
        conns = []
        try:
            for _ in range(count):
                conns.append(self.connect())
        except DriverError:
            for conn in conns:
                _close(conn)
            raise
        return conns

    def _report_until_done(self, stop: threading.Event, started: float, summary: Summary, probe) -> bool:
        """Print a line each interval; True when the duration ran out, False when stopped."""
        interval, duration = self.options.interval, self.options.duration
        deadline = started + duration if duration > 0 else float("inf")
        last_at, last_count = started, 0
        while True:
            next_tick = last_at + interval
            if stop.wait(max(0.0, min(next_tick, deadline) - time.monotonic())):
                return False
            now = time.monotonic()
            if now >= next_tick or now >= deadline:
                count = sum(self.commits)
                tps = (count - last_count) / (now - last_at)
                if now - last_at >= interval / 2:  # a short last interval would skew p5/p95
                    summary.interval_tps.append(tps)
                self.report(f"{now - started:8.1f}s  tps {tps:9.1f}  committed {count:9d}  "
                            f"rollbacks {sum(self.rollbacks):6d}  history length {_history_length(probe)}"
                            + (f"  PAUSED ({self.options.pause_file} exists)" if self.paused.is_set() else ""))
                last_at, last_count = now, count
            if now >= deadline:
                return True

    def _session(self, conn: pymysql.Connection, index: int, stop: threading.Event) -> None:
        trx = Transactions(self.options.schema, self.options.rows, self.options.mode)
        think = self.options.think_ms / 1000
        try:
            with conn.cursor() as cur:
                while not stop.is_set():
                    if self.paused.is_set():
                        stop.wait(PAUSE_POLL_S)
                        continue
                    self._timed(trx, cur, index)
                    if think:
                        stop.wait(think)
        except pymysql.MySQLError as exc:
            self._fail(exc, stop)
        finally:
            _close(conn)

    def _timed(self, trx: Transactions, cur, index: int) -> None:
        """One transaction, counted; timed too once the warm-up is over (the driver's own response times)."""
        began = time.monotonic()
        committed = trx.run_one(cur)
        if committed:
            self.commits[index] += 1
            self.latencies[index].append(time.monotonic() - began)
        else:
            self.rollbacks[index] += 1
        if began >= self.measure_from:
            self.measured[index].record(time.monotonic() - began, committed)

    def take_measured(self) -> Measured | None:
        """The sessions' figures since the last take, and a new count from now (after the warm-up again):
        a pause ends the load's run, a resume starts the next (workload.runs.PausableRun)."""
        now = time.monotonic()
        found = self._measured(now)
        self.measured = [Measured() for _ in range(self.options.concurrency)]
        self.measure_from = now + self.options.warmup
        return found

    def _measured(self, ended: float) -> Measured | None:
        """The sessions' after-warm-up figures merged; None when the run ended inside its warm-up."""
        if ended <= self.measure_from:
            return None
        merged = Measured(seconds=ended - self.measure_from)
        for part in self.measured:
            merged.merge(part)
        return merged

    def _hold(self, conn: pymysql.Connection, stop: threading.Event) -> None:
        hold, every = self.options.hold_trx, self.options.hold_every
        try:
            with conn.cursor() as cur:
                while not stop.is_set():
                    if self.paused.is_set():
                        stop.wait(PAUSE_POLL_S)
                        continue
                    opened = time.monotonic()
                    cur.execute(OPEN_READ_VIEW)
                    cur.execute(READ_IN_VIEW.format(schema=self.options.schema))
                    cur.fetchall()
                    self.report(f"read view opened: held for {hold:g} s, history length grows until it closes")
                    self._wait_unless_paused(stop, hold)
                    cur.execute("COMMIT")
                    self.report(f"read view closed after {time.monotonic() - opened:.1f} s"
                                + (" (paused)" if self.paused.is_set() else ""))
                    if not every or stop.wait(max(0.0, opened + every - time.monotonic())):
                        return
        except pymysql.MySQLError as exc:
            if not stop.is_set():
                self._fail(exc, stop)
        finally:
            _close(conn)

    def _wait_unless_paused(self, stop: threading.Event, seconds: float) -> None:
        """Wait that long, or until stopped or paused (a pause closes the held read view too)."""
        until = time.monotonic() + seconds
        while not stop.is_set() and not self.paused.is_set() and time.monotonic() < until:
            stop.wait(min(PAUSE_POLL_S, max(0.0, until - time.monotonic())))

    def _watch(self, stop: threading.Event) -> None:
        while not stop.wait(PAUSE_POLL_S):
            self._watch_pause(stop)

    def _watch_pause(self, stop: threading.Event) -> None:
        """Follow the pause file, and say when the load pauses or resumes."""
        paused = Path(self.options.pause_file).exists()
        if paused == self.paused.is_set():
            return
        if paused:
            self.paused.set()
        if self.on_pause:  # after the sessions stop, before they start again: no transaction in no run
            self.on_pause(paused)
        if not paused:
            self.paused.clear()
        self.report("paused: no transaction starts until the pause file is removed" if paused else "resumed")
    def _stall(self, conn: pymysql.Connection, stop: threading.Event) -> None:
        """Every stall_every seconds from the start, hold the global read lock for stall_for seconds."""
        every, length = self.options.stall_every, self.options.stall_for
        started = time.monotonic()
        try:
            with conn.cursor() as cur:
                while not stop.wait(max(0.0, started + (self.stalls + 1) * every - time.monotonic())):
                    cur.execute(STALL)
                    self.stalls += 1
                    self.report(f"stall {self.stalls}: global read lock held for {length:g} s")
                    stop.wait(length)
                    cur.execute(UNSTALL)
        except pymysql.MySQLError as exc:
            if exc.args and exc.args[0] in ACCESS_DENIED:
                exc = pymysql.MySQLError(0, f"--stall-every needs the RELOAD privilege for {STALL} ({exc.args[-1]})")
            if not stop.is_set():
                self._fail(exc, stop)
        finally:
            _close(conn)

    def _fail(self, exc: pymysql.MySQLError, stop: threading.Event) -> None:
        with self._lock:
            if not self.error:
                self.error = self._explain(exc)
        stop.set()

    def _explain(self, exc: pymysql.MySQLError) -> str:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        schema, user = self.options.schema, self.target.user
        if code in ACCESS_DENIED:
            return (f"server {self.target.name}: user '{user}' may not write the stress schema `{schema}` "
                    f"({exc.args[-1]}). The monitoring user is read-only by design: pass --user and "
                    f"--password-env for a user granted ALL ON `{schema}`.*")
        where = self.target.socket or f"{self.target.host}:{self.target.port}"
        return (f"server {self.target.name}: the workload stopped: {describe_error(exc, where, user)}. "
                "Check that the server is running (.venv/bin/python manage.py poll "
                f"{self.target.name}), then run stress again.")


def _history_length(probe: pymysql.Connection) -> str:
    """Best effort: MariaDB's status variable; '-' where the server has none or the probe failed."""
    try:
        with probe.cursor() as cur:
            cur.execute(HISTORY_LENGTH)
            row = cur.fetchone()
        return str(row[1]) if row else "-"
    except pymysql.MySQLError:
        return "-"


def _close(conn: pymysql.Connection) -> None:
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - closing a dead connection must not hide the real error
        pass
