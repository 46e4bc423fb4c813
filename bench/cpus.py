# os.sched_setaffinity on every thread (psutil lists them): the monitored server on CPUs of its own.
"""Keep the monitored server and the monitors off each other's CPUs, as separate hosts would be.

On one machine a monitor's client work right after a statement's result arrives (parsing,
the store write) takes the CPU from the server thread that is still ending that statement,
and performance_schema counts the wait in the statement's time: on 2 shared cores our
one-statement poll read 2.5 ms of server time against 1.5 ms of round trip at the client
(docs/benchmarks.md). In production the monitor runs on another host; pinning gives the
server its own CPU so that what is measured is the server's work.

Pinning keeps the server on its CPU but nobody else off it: other processes on the machine (the
tests of whoever shares it) still run there, and a server thread woken by a statement then
waits for them, counted as statement time again (session 18's "slow" peer runs: 12-25 ms a
statement against 3-6). So the server's threads also run before them (`prioritize`), and
`Busy` reads how much of the server's CPU went to others while a bench measured.
"""

import os
import time
from pathlib import Path

import psutil


def split() -> tuple[set[int], set[int]] | None:
    """(the server's CPUs, everyone else's): the first CPU we may use and the rest; None on one CPU."""
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        return None
    return {usable[0]}, set(usable[1:])


def pin_tree(pid: int, cpus: set[int]) -> None:
    """Every thread of pid and of its descendants onto cpus (threads and processes they start later inherit it)."""
    for process in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
        for thread in process.threads():
            try:
                os.sched_setaffinity(thread.id, cpus)
            except (ProcessLookupError, PermissionError):
                pass  # a thread that ended meanwhile


def pin_embedded(cpus: set[int]) -> None:
    """The test settings' Postgres and Redis (daemons, not our children) onto cpus, with their workers."""
    var = Path(os.environ["STEADYSTATE_VAR"])
    for pidfile in (var / "pg" / "postmaster.pid", var / "redis.pid"):
        if pidfile.exists():
            pin_tree(int(pidfile.read_text().split()[0]), cpus)


def describe(cpus: set[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def prioritize(pid: int) -> bool:
    """Every thread of pid in the real-time round-robin class at its lowest priority (threads it starts
    later inherit it): it runs as soon as it is woken, before any ordinary process on its CPU; False
    without the right (CAP_SYS_NICE).

    A niceness does not do it: with the kernel's autogroups (sched_autogroup_enabled) each session
    shares the CPU as one, so a thread at -10 still waits its session's turn behind every other
    session's processes. The kernel keeps 5 % of each second for ordinary processes
    (sched_rt_runtime_us), and the server's own threads still take turns among themselves.
    """
    try:
        for thread in psutil.Process(pid).threads():
            try:
                os.sched_setscheduler(thread.id, os.SCHED_RR, os.sched_param(1))
            except ProcessLookupError:
                pass  # a thread that ended meanwhile
    except PermissionError:
        return False
    return True


class Busy:
    """How busy some CPUs were between two readings, and how much of that was one process's own work."""

    FIELDS_BUSY = (0, 1, 2, 5, 6)  # user, nice, system, irq, softirq (of /proc/stat's cpuN lines)
    STEAL = 7

    def __init__(self, cpus: set[int], pid: int):
        self.cpus, self.process = cpus, psutil.Process(pid)
        self.tick = os.sysconf("SC_CLK_TCK")
        self.start = self.read()

    def read(self) -> tuple[float, float, float, float]:
        """(monotonic s, busy s of the CPUs, stolen s of them, the process's CPU s)."""
        busy = steal = 0.0
        for line in Path("/proc/stat").read_text().splitlines():
            name, *fields = line.split()
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in self.cpus:
                busy += sum(int(fields[i]) for i in self.FIELDS_BUSY) / self.tick
                steal += int(fields[self.STEAL]) / self.tick
        times = self.process.cpu_times()
        return time.monotonic(), busy, steal, times.user + times.system

    def since(self) -> tuple[float, float]:
        """(share of the CPUs' time spent by others than the process, share stolen by the host) since the
        last call; the start for the first."""
        end = self.read()
        (t0, busy0, steal0, own0), (t1, busy1, steal1, own1) = self.start, end
        self.start = end
        wall = (t1 - t0) * len(self.cpus)
        return max(0.0, (busy1 - busy0) - (own1 - own0)) / wall, (steal1 - steal0) / wall
