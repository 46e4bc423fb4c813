"""Stops the servers a test process started once that process is gone, however it went.

The suite stops its PostgreSQL and Redis at exit (monitor/settings_test.py) and its MariaDBs in fixture
finalizers, none of which run when pytest dies by SIGTERM (Python's default: exit at once), SIGKILL or
os._exit (pytest-timeout's thread method): each such death left its three servers running, and their
temp dirs, for every later run to share the machine with.

The reaper is a child of the test process in a session of its own (a signal to the test run's process
group does not reach it), reading a pipe the test process holds open: the end of the pipe is that
process's end, by any death. It is told, a line each, which pid files name a server to stop and which
dirs to remove; at the end it stops each server still running (the pid file read then, so a server
restarted by a test is the one stopped) and removes the dirs. After a clean exit it finds nothing left.

    python -m testing.reaper    (the test process writes to its stdin: start() below)
"""

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

STOP_WAIT = 30.0  # seconds a server gets to stop before SIGKILL
BASE = Path(__file__).resolve().parent.parent

_reaper: subprocess.Popen | None = None


def start() -> None:
    """Start this process's reaper (once): what is handed to it from now on is stopped after this process ends."""
    global _reaper
    if _reaper is None:
        _reaper = subprocess.Popen([sys.executable, "-m", "testing.reaper"], stdin=subprocess.PIPE, cwd=BASE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def stop_server(pidfile: Path, name: str, sig: signal.Signals = signal.SIGTERM) -> None:
    """After this process: the process `pidfile` names, if its name has `name` in it, gets `sig` (then SIGKILL)."""
    _tell(f"server {sig.name} {name} {pidfile}")


def remove_dir(path: Path) -> None:
    """After this process (and the servers): remove the directory."""
    _tell(f"dir {path}")


def _tell(line: str) -> None:
    if _reaper is None or _reaper.stdin is None:
        return  # no reaper in this process: its servers are another's (a test's child process)
    try:
        _reaper.stdin.write(line.encode() + b"\n")
        _reaper.stdin.flush()
    except (BrokenPipeError, ValueError):
        pass  # the reaper was killed: nothing more to do than before there was one


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is for the run; this cleans up after it
    orders = [line.split(" ", 1) for line in sys.stdin.read().splitlines() if " " in line]  # until the end
    servers = [running(*rest.split(" ", 2)) for kind, rest in orders if kind == "server"]
    stop([s for s in servers if s is not None])
    for kind, rest in orders:
        if kind == "dir":
            shutil.rmtree(rest, ignore_errors=True)


def running(sig: str, name: str, pidfile: str) -> tuple[psutil.Process, signal.Signals] | None:
    """(process, signal) for the live process of that name the pid file names; None when there is none."""
    try:
        process = psutil.Process(int(Path(pidfile).read_text().split()[0]))
        if name in process.name() and process.status() != psutil.STATUS_ZOMBIE:
            return process, signal.Signals[sig]
    except (OSError, ValueError, IndexError, KeyError, psutil.Error):
        pass
    return None


def stop(servers: list[tuple[psutil.Process, signal.Signals]]) -> None:
    for process, sig in servers:
        try:
            process.send_signal(sig)
        except psutil.Error:
            pass
    deadline = time.monotonic() + STOP_WAIT
    while time.monotonic() < deadline and not all(gone(p) for p, _ in servers):
        time.sleep(0.1)
    for process, _ in servers:
        try:
            if not gone(process):
                process.kill()
        except psutil.Error:
            pass


def gone(process: psutil.Process) -> bool:
    """Exited: a zombie too (a daemon's parent is init, which here may never reap it)."""
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


if __name__ == "__main__":
    main()
