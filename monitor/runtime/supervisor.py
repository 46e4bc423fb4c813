"""A supervised group of child processes for `manage.py up`.

Policy: if any child exits on its own, the group reports it and stops all the
others (no silent restarts: a crash loop would hide the cause). Each child runs
in its own session, so stopping it signals its whole process group (gunicorn
workers, Celery pool processes); and the kernel sends it SIGTERM should the
supervisor itself die.
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


@dataclass
class Child:
    """One command of the group. on_stop runs after the whole group stopped (e.g. to clean up a demo)."""

    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    on_stop: Callable[[], None] | None = None
    process: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> None:
        self.process = subprocess.Popen(self.argv, env=self.env, start_new_session=True, preexec_fn=die_with_parent)

    @property
    def pid(self) -> int:
        return self.process.pid

    def exited(self) -> int | None:
        return self.process.poll() if self.process else None

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone


    def wait_group_gone(self, timeout: float = 5.0) -> None:
        """SIGKILL is asynchronous: wait until no process of the group is left (orphans included)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.02)


def die_with_parent() -> None:
    # Runs in the child between fork and exec: the kernel SIGTERMs it when the
    # thread that started it exits, so also when its process dies, even by SIGKILL.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: Ctrl-C still stops the group


class Group:
    """Start children, watch them, stop them all together."""

    def __init__(self, children: list[Child], log: Callable[[str], None] = print) -> None:
        self.children = children
        self.log = log

    def start(self) -> None:
        for child in self.children:
            child.start()
            self.log(f"up: started {child.name} (pid {child.pid})")

    def first_exited(self) -> Child | None:
        return next((c for c in self.children if c.exited() is not None), None)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM every group, wait, then SIGKILL whatever is left (grandchildren included)."""
        running = [c for c in self.children if c.process]
        for child in running:
            child.signal_group(signal.SIGTERM)
        began = time.monotonic()
        for child in running:
            try:
                child.process.wait(max(0.1, began + timeout - time.monotonic()))
                self.log(f"up: {child.name} stopped ({time.monotonic() - began:.1f} s)")
            except subprocess.TimeoutExpired:
                self.log(f"up: {child.name} did not stop within {timeout:.0f} s: killing it")
            child.signal_group(signal.SIGKILL)
            child.process.wait()
            child.wait_group_gone()
        for child in self.children:
            if child.on_stop:
                child.on_stop()


def log_to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
