"""The test suite's MariaDB: the sandbox of monitor.sandbox, which the `make run` demo uses too."""

from monitor.sandbox import SandboxMariaDB, find_binary, free_port

__all__ = ["SandboxMariaDB", "find_binary", "free_port"]
