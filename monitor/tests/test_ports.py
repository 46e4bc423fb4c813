"""free_port() of a test process: its own range, below the kernel's, each port handed out once a turn."""

import os
import socket

import pytest

from monitor.runtime import ports
from monitor.runtime.ports import free_port
from testing.ports import LOWEST, ephemeral_low, use_worker_ports


@pytest.fixture
def three_ports():
    """A range of three ports nothing listens on; this process's own range again afterwards."""
    for low in range(LOWEST - 100, LOWEST - 3000, -3):  # below every worker's range
        if all(ports.is_free(p) for p in (low, low + 1, low + 2)):
            ports.use_range(low, low + 2)
            break
    else:
        pytest.skip("no three free ports in a row below the workers' ranges")
    yield low
    use_worker_ports(os.environ.get("PYTEST_XDIST_WORKER", ""))


def test_it_hands_each_port_of_the_range_once_before_any_again(three_ports):
    low = three_ports
    first = [free_port() for _ in range(3)]
    assert sorted(first) == [low, low + 1, low + 2]
    assert [free_port() for _ in range(3)] == first


def test_it_skips_a_port_another_program_listens_on(three_ports):
    low = three_ports
    with socket.socket() as held:
        held.bind(("127.0.0.1", low + 1))
        held.listen()
        assert {free_port() for _ in range(6)} == {low, low + 2}


def test_each_worker_has_its_own_range_below_the_kernels(monkeypatch):
    if ephemeral_low() <= 24999:
        pytest.skip(f"this machine's ephemeral ports start at {ephemeral_low()}: the workers use the kernel's")
    given = {}
    for worker in ("", "gw0", "gw1", "gw2", "gw3"):
        monkeypatch.setattr(ports, "use_range", lambda low, high, w=worker: given.setdefault(w, (low, high)))
        use_worker_ports(worker)
    assert given == {
        "": (20000, 20999),
        "gw0": (21000, 21999),
        "gw1": (22000, 22999),
        "gw2": (23000, 23999),
        "gw3": (24000, 24999),
    }
