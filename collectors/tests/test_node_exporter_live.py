"""The suite's own node_exporter, read through the poll: a known CPU load and known disk reads show up."""

import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from collectors.batch import poll_server
from collectors.models import ServerHealth
from store import query

BUSY_CPU_SECONDS = 1.0  # of CPU time, however long the shared machine takes to give it
READ_BLOCKS, BLOCK = 2048, 4096  # 8 MiB read in 4 KiB O_DIRECT reads: each one a completed read of the device


@pytest.fixture
def host_server(make_server, mariadb, node_exporter_url):
    return make_server("with-host-stats", mariadb.port, node_exporter_url=node_exporter_url)


def host_values(server) -> tuple[Mapping, float | None]:
    result = poll_server(server.id, only=["node_exporter"])
    (outcome,) = result.sources
    assert outcome.ok and outcome.sample is not None, outcome.error
    return outcome.sample.values, outcome.sample.interval


def busy_child_user_seconds() -> float:
    """Run a pure-Python busy loop in a child; the user CPU seconds the kernel charged it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    # Reading the CPU clock is a system call: look at it once per 100,000 turns, so the time is user time.
    loop = f"import time\nwhile time.process_time() < {BUSY_CPU_SECONDS}:\n    for _ in range(100_000): pass\n"
    subprocess.run([sys.executable, "-c", loop], check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def test_a_busy_loop_shows_as_user_cpu_percent(host_server):
    host_values(host_server)  # baseline
    spent = busy_child_user_seconds()
    values, interval = host_values(host_server)
    # Our loop alone is spent / (cpus x interval) of the host's CPU time; other processes only add to it.
    mode = "nice" if os.nice(0) > 0 else "user"  # a niced test run is charged as nice, as mpstat shows it
    floor = 100.0 * spent / (values["host.cpus"] * interval)
    assert spent >= 0.8 * BUSY_CPU_SECONDS  # nearly all of it user time
    assert values[f"host.cpu.{mode}_pct"] >= floor - 1.0  # 1 point: the kernel counts in 10 ms ticks
    assert 0.0 <= values["host.cpu.busy_pct"] <= 100.0


def block_device_of(path: Path) -> str:
    """The disk (not partition) holding a file, as node_exporter names it."""
    st = os.stat(path)
    sys_dir = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}").resolve()
    assert sys_dir.exists(), f"{path} is not on a block device (overlay or tmpfs): the test needs a real disk"
    return sys_dir.parent.name if (sys_dir / "partition").exists() else sys_dir.name


def test_direct_reads_show_as_reads_per_second(host_server, tmp_path):
    data = tmp_path / "blocks"
    size_mb = READ_BLOCKS * BLOCK // (1024 * 1024)
    subprocess.run(["dd", "if=/dev/urandom", f"of={data}", "bs=1M", f"count={size_mb}", "oflag=direct"],
                   check=True, capture_output=True)
    device = block_device_of(data)
    host_values(host_server)  # baseline
    subprocess.run(["dd", f"if={data}", "of=/dev/null", f"bs={BLOCK}", "iflag=direct"], check=True,
                   capture_output=True)
    values, interval = host_values(host_server)
    assert values[f"host.disk.reads:{device}"] >= READ_BLOCKS
    assert values[f"host.disk.read_bytes:{device}"] >= READ_BLOCKS * BLOCK
    assert values[f"host.disk.reads:{device}"] / interval >= READ_BLOCKS / interval  # the chart's reads/s
    assert 0.0 <= values[f"host.disk.util_pct:{device}"] <= 100.0 and values[f"host.disk.await_ms:{device}"] > 0


def test_host_and_database_figures_are_polled_together_into_the_store(host_server):
    both = ["global_status", "node_exporter"]  # named, so the next poll runs at once
    wanted = {"host.cpu.busy_pct", "host.mem.used_bytes", "tps"}
    poll_server(host_server.id, only=both)
    for _ in range(3):
        # A second between polls: CPU times tick in 10 ms steps, and an interval in which a mode's
        # counter went down (the kernel's iowait quirk) gives no CPU figure by design; the next one does.
        time.sleep(1)
        poll_server(host_server.id, only=both)
        health = ServerHealth.objects.get(server=host_server)
        assert health.consecutive_failures == 0
        assert health.sources["node_exporter"]["ok"] and health.sources["global_status"]["ok"]
        latest = query.latest([host_server.id], list(wanted))
        if {name for _sid, name in latest} == wanted:
            break
    assert {name for _sid, name in latest} == wanted


def test_a_server_without_a_url_has_no_host_source(server):
    result = poll_server(server.id)
    assert "node_exporter" not in {s.name for s in result.sources} and result.ok


def test_the_poll_command_reads_the_host_agent_of_a_server_that_has_one(host_server, server):
    from io import StringIO

    from django.core.management import call_command

    with_agent, without = StringIO(), StringIO()
    call_command("poll", host_server.name, stdout=with_agent)
    call_command("poll", server.name, stdout=without)
    assert "  node_exporter: ok" in with_agent.getvalue()
    assert "node_exporter" not in without.getvalue()
