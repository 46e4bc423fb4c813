"""The test suite's MariaDB: the sandbox of monitor.runtime.sandbox, which the `make run` demo uses too."""

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from monitor.runtime.sandbox import SandboxMariaDB, find_binary, free_port

__all__ = ["SandboxMariaDB", "find_binary", "free_port", "running_sandbox"]


@contextmanager
def running_sandbox(prefix: str, performance_schema: bool = True) -> Iterator[SandboxMariaDB]:
    """A MariaDB of its own in a temp dir, with the monitoring user; removed on exit."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server = SandboxMariaDB(base / "data", performance_schema=performance_schema)
    try:
        server.start()
        server.create_monitor_user()
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
