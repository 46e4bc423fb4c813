"""Celery worker processes of our own, as separate machines would run them (tests, benchmarks)."""

import signal
import subprocess
import time
from pathlib import Path

import psutil

from collectors import state

BASE_DIR = Path(__file__).resolve().parent.parent


def start_worker(name: str, env: dict[str, str], log: Path, concurrency: int = 4,
                 threads: int = 16) -> subprocess.Popen:
    """`celery worker -n NAME@localhost` in the threads pool, as `docker compose --scale worker=N` runs it."""
    env = dict(env, COLLECTORS_THREADS=str(threads))
    cmd = [str(BASE_DIR / ".venv/bin/celery"), "-A", "monitor", "worker", "--pool=threads",
           f"--concurrency={concurrency}", "-n", f"{name}@localhost", "--without-gossip", "--without-mingle",
           "--without-heartbeat", "--loglevel=WARNING"]
    return subprocess.Popen(cmd, cwd=BASE_DIR, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def wait_alive(names: list[str], workers: list[subprocess.Popen], timeout: float = 60) -> None:
    """Until each worker's heartbeat is in Redis (it is consuming); an early exit is an error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(state.client().exists(state.WORKER_KEY.format(f"{n}@localhost")) for n in names):
            return
        if any(w.poll() is not None for w in workers):
            raise RuntimeError("a worker exited while starting (see its log)")
        time.sleep(0.2)
    raise RuntimeError(f"workers {names} not alive after {timeout:g} s")


def connections_to(worker: subprocess.Popen, port: int) -> int:
    """The worker's open TCP connections to a port (its pooled monitoring connections)."""
    return sum(1 for c in psutil.Process(worker.pid).net_connections("tcp")
               if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED)


def stop_worker(worker: subprocess.Popen, timeout: float = 20) -> None:
    if worker.poll() is not None:
        return
    worker.send_signal(signal.SIGTERM)  # warm shutdown: running polls finish, connections close
    try:
        worker.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
