"""Debian's prometheus-node-exporter on a private port: the host statistics of the demo server and of the tests.

Only the collectors the node_exporter source reads are switched on, so the agent costs
this machine little; it listens on 127.0.0.1 only.
"""

import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from collectors.sources.node_exporter import COLLECTORS
from monitor.runtime.ports import free_port
from monitor.runtime.sandbox import find_binary
from monitor.runtime.supervisor import die_with_parent

INSTALL_HINT = ("SteadyState demo: prometheus-node-exporter not found, so the demo server has no host statistics "
                "(CPU, disk, network). To get them, install it (apt-get install prometheus-node-exporter) and run "
                "`make run` again.")
READY_TIMEOUT = 10.0  # seconds for the agent to answer its first scrape


def find() -> str | None:
    return find_binary("prometheus-node-exporter", "node_exporter")


def command(binary: str, port: int) -> list[str]:
    return [binary, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
            *(f"--collector.{name}" for name in COLLECTORS), "--web.disable-exporter-metrics", "--log.level=error"]


def metrics_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/metrics"


def wait_ready(url: str, process: subprocess.Popen, timeout: float = READY_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                answer.read()
            return
        except OSError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"node_exporter did not answer on {url}: {exc}") from exc
            time.sleep(0.05)


@contextmanager
def running(port: int | None = None) -> Iterator[str]:
    """A node_exporter for as long as the block runs; yields its metrics URL."""
    binary = find()
    if binary is None:
        raise RuntimeError(INSTALL_HINT)
    port = port or free_port()
    process = subprocess.Popen(command(binary, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=die_with_parent)
    try:
        wait_ready(metrics_url(port), process)
        yield metrics_url(port)
    finally:
        process.terminate()
        process.wait(timeout=10)
