"""A supervised group for `manage.py up`: child processes and the daemons it started, restarted when they die.

Policy: whatever dies (a child process exiting on its own, or a daemon such as
the embedded Redis no longer running) is said, and started again after a
backoff that doubles with each crash (1 s, 2 s, ... up to a minute) and starts
over once it ran for a minute. Five crashes within five minutes are a crash
loop: said, and reported once through on_crash_loop (`up` mails it), while the
restarts go on: the watchdog and the web must outlive a crashing worker. Each
child runs in its own session, so stopping it signals its whole process group
(gunicorn workers, Celery pool processes), and the kernel sends it SIGTERM
should the supervisor itself die.
"""

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

PR_SET_PDEATHSIG = 1
STOP_TIMEOUT = 15.0  # seconds a child gets to finish its work before SIGKILL


@dataclass(frozen=True)
class Policy:
    """When to restart, and what is a crash loop."""

    first_delay: float = 1.0  # seconds before the first restart; doubled for each crash in a row
    longest_delay: float = 60.0
    stable_after: float = 60.0  # a unit that ran this long starts over from first_delay
    loop_crashes: int = 5  # this many crashes ...
    loop_window: float = 300.0  # ... within this many seconds: a crash loop


@dataclass
class Restarts:
    """One unit's crash history."""

    crashes: list[float] = field(default_factory=list)  # when it was found dead, within the loop window
    in_a_row: int = 0  # crashes without a stable run between them
    started_at: float = 0.0
    restart_at: float | None = None  # set while waiting out the backoff
    loop_reported: bool = False


class Child:
    """One command of the group. on_stop runs after the whole group stopped (e.g. to clean up a demo)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None = None,
                 on_stop: Callable[[], None] | None = None) -> None:
        self.name, self.argv, self.env, self.on_stop = name, argv, env, on_stop
        self.process: subprocess.Popen | None = None
        self.restarts = Restarts()

    def start(self) -> None:
        if self.process:  # a restart: what the dead one left in its group (gunicorn workers) holds its port
            self.signal_group(signal.SIGKILL)
            self.wait_group_gone()
        self.process = subprocess.Popen(self.argv, env=self.env, start_new_session=True, preexec_fn=die_with_parent)

    @property
    def pid(self) -> int:
        if self.process is None:
            raise RuntimeError(f"{self.name} has no pid before start()")
        return self.process.pid

    def exited(self) -> int | None:
        return self.process.poll() if self.process else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def how_it_died(self) -> str:
        return f"exited with code {self.exited()}"

    def signal_group(self, sig: int) -> None:
        if self.process is None:
            return  # never started: no group to signal
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone

    def wait_group_gone(self, timeout: float = 5.0) -> None:
        """SIGKILL is asynchronous: wait until no process of the group is left (orphans included)."""
        if self.process is None:
            return  # never started: no group to wait for
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.02)


class Daemon:
    """A server `up` started that is not a child to wait for (the embedded Redis, PostgreSQL, the demo's
    MariaDB): watched with alive(), started again with start(); stopped by its owner, not by the group."""

    def __init__(self, name: str, alive: Callable[[], bool], start: Callable[[], object]) -> None:
        self.name, self._alive, self._start = name, alive, start
        self.on_stop = None
        self.restarts = Restarts()

    def alive(self) -> bool:
        return self._alive()

    def start(self) -> None:
        self._start()

    def how_it_died(self) -> str:
        return "is not running any more"


def die_with_parent() -> None:
    # Runs in the child between fork and exec: the kernel SIGTERMs it when the
    # thread that started it exits, so also when its process dies, even by SIGKILL.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: Ctrl-C still stops the group


class Group:
    """Start children, restart what dies, stop them all together."""

    def __init__(self, children: list, log: Callable[[str], None] = print, policy: Policy = Policy(),
                 on_crash_loop: Callable[[str, str], None] | None = None) -> None:
        self.children = children  # Child and Daemon
        self.log, self.policy, self.on_crash_loop = log, policy, on_crash_loop

    def start(self) -> None:
        now = time.monotonic()
        for unit in self.children:
            unit.restarts.started_at = now
            if isinstance(unit, Child):
                unit.start()
                self.log(f"up: started {unit.name} (pid {unit.pid})")

    def first_exited(self) -> Child | None:
        return next((c for c in self.children if isinstance(c, Child) and c.exited() is not None), None)

    def watch(self, now: float | None = None) -> None:
        """One look at every unit: restart the dead ones whose backoff is over, report crash loops."""
        now = time.monotonic() if now is None else now
        for unit in self.children:
            if unit.restarts.restart_at is None:
                self.check(unit, now)
            elif now >= unit.restarts.restart_at:
                self.restart(unit, now)

    def check(self, unit, now: float) -> None:
        history, policy = unit.restarts, self.policy
        if unit.alive():
            if history.in_a_row and now - history.started_at >= policy.stable_after:
                history.in_a_row, history.loop_reported = 0, False
            return
        history.in_a_row += 1
        history.crashes = [t for t in history.crashes if now - t < policy.loop_window] + [now]
        delay = min(policy.longest_delay, policy.first_delay * 2 ** (history.in_a_row - 1))
        history.restart_at = now + delay
        self.log(f"up: {unit.name} {unit.how_it_died()}: restarting it in {delay:.0f} s "
                 f"({len(history.crashes)} crash(es) in the last {policy.loop_window / 60:.0f} min)")
        if len(history.crashes) >= policy.loop_crashes and not history.loop_reported:
            history.loop_reported = True
            self.report_loop(unit, delay)

    def restart(self, unit, now: float) -> None:
        unit.restarts.restart_at = None
        unit.restarts.started_at = now
        try:
            unit.start()
        except Exception as exc:  # noqa: BLE001 - the next look finds it dead: one more crash, a longer wait
            self.log(f"up: starting {unit.name} again failed: {exc}")
            return
        self.log(f"up: restarted {unit.name}" + (f" (pid {unit.pid})" if isinstance(unit, Child) else ""))

    def report_loop(self, unit, delay: float) -> None:
        policy = self.policy
        text = (f"{unit.name} crashed {len(unit.restarts.crashes)} times within {policy.loop_window / 60:.0f} "
                f"minutes (last: it {unit.how_it_died()}). `up` keeps restarting it, now every {delay:.0f} s "
                f"(at most every {policy.longest_delay:.0f} s); its output is in up's log.")
        self.log(f"up: {unit.name} is crash-looping: {text}")
        if self.on_crash_loop:
            try:
                self.on_crash_loop(unit.name, text)
            except Exception as exc:  # noqa: BLE001 - SMTP down: said in the log, supervision goes on
                self.log(f"up: could not mail the crash loop of {unit.name}: {exc}")

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM every group, wait, then SIGKILL whatever is left (grandchildren included)."""
        running = [(c, c.process) for c in self.children if isinstance(c, Child) and c.process]
        for child, _ in running:
            child.signal_group(signal.SIGTERM)
        began = time.monotonic()
        for child, process in running:
            try:
                process.wait(max(0.1, began + timeout - time.monotonic()))
                self.log(f"up: {child.name} stopped ({time.monotonic() - began:.1f} s)")
            except subprocess.TimeoutExpired:
                self.log(f"up: {child.name} did not stop within {timeout:.0f} s: killing it")
            child.signal_group(signal.SIGKILL)
            process.wait()
            child.wait_group_gone()
        for child in self.children:
            if child.on_stop:
                child.on_stop()


def log_to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
