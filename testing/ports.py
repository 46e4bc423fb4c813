"""Each test process's own range of ports (monitor.runtime.ports.free_port hands them out).

Below the kernel's ephemeral range, so neither bind(0) nor an outgoing connection is ever given one, and one
range per pytest-xdist worker (gw0, gw1, ...; the process running the tests without xdist has the first), so
no two workers hand out the same port.
"""

from pathlib import Path

from monitor.runtime import ports

LOWEST = 20000  # above the ports people give their own servers (8000s, 3306, 5432)
WIDTH = 1000  # ports per test process: a run hands out a few hundred
EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def use_worker_ports(worker: str) -> None:
    """free_port() of this process hands out its own ports: those of this xdist worker ("" without xdist);
    the kernel's as before when the range would reach the ephemeral one (a machine configured so)."""
    index = int(worker[2:]) + 1 if worker.startswith("gw") and worker[2:].isdigit() else 0
    low = LOWEST + index * WIDTH
    if low + WIDTH - 1 < ephemeral_low():
        ports.use_range(low, low + WIDTH - 1)


def ephemeral_low() -> int:
    try:
        return int(EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default
