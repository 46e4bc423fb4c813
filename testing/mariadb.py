"""The test suite's MariaDB: the sandbox of monitor.runtime.sandbox, which the `make run` demo uses too."""

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from monitor.runtime.ports import free_port
from monitor.runtime.sandbox import SandboxMariaDB, find_binary
from testing import reaper

__all__ = ["SandboxMariaDB", "find_binary", "free_port", "running_sandbox"]


@contextmanager
def running_sandbox(prefix: str, performance_schema: bool = True, server_id: int = 1,
                    log_bin: bool = False, extra_args: tuple[str, ...] = ()) -> Iterator[SandboxMariaDB]:
    """A MariaDB of its own in a temp dir, with the monitoring user; removed on exit.

    Replication: a source with log_bin=True, a replica with another server_id (SandboxMariaDB.replicate_from).
    extra_args are more mariadbd options (e.g. testing.tls_certs.Files.server_args() for TLS).
    """
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server = SandboxMariaDB(base / "data", performance_schema=performance_schema, server_id=server_id,
                            log_bin=log_bin, extra_args=list(extra_args))
    # Stopped and removed after this process, should it die before the finally below (testing/reaper.py).
    reaper.stop_server(server.datadir / "mariadbd.pid", "mariadbd")
    reaper.remove_dir(base)
    try:
        server.start()
        server.create_monitor_user()
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
