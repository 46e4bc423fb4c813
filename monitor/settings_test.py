"""Test settings: a private embedded PostgreSQL and Redis in a temp dir.

Each test process gets its own, so parallel runs never share state.
"""

import atexit
import os
import shlex
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from monitor.runtime import embedded
from testing import reaper
from testing.ports import use_worker_ports

_var = Path(tempfile.mkdtemp(prefix="steadystate-test-"))
os.chmod(_var, 0o755)  # pgserver runs postgres as its own user when root
atexit.register(shutil.rmtree, _var, True)  # registered first: runs after the servers stop
os.environ["STEADYSTATE_VAR"] = str(_var)
# pytest-xdist's workers inherit the controller's environment, and with it the servers its settings started:
# a worker starts its own (a test's child process, same worker, still shares its parent's).
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
use_worker_ports(_worker)  # free_port() never hands out another worker's port


def _hands_tests_to_workers() -> bool:
    """This is pytest's process under `-n N` (N > 0): it runs no test, so servers it started would only delay the
    run (their start before the workers', their stop after)."""
    if _worker or "xdist.plugin" not in sys.modules:
        return False
    args = sys.argv[1:] + shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    if "no:xdist" in args:
        return False
    for i, arg in enumerate(args):
        if arg in ("-n", "--numprocesses"):
            return args[i + 1 : i + 2] != ["0"]
        if arg.startswith("--numprocesses="):
            return arg.partition("=")[2] != "0"
        if arg.startswith("-n") and arg[2:3] != "-":
            return arg[2:] != "0"
    return False


if os.environ.get("STEADYSTATE_TEST_SERVERS_OF", _worker) != _worker:
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
if not _hands_tests_to_workers():  # the workers start their own (DATABASE_URL and REDIS_URL stay unset for them)
    if not os.getenv("DATABASE_URL") or not os.getenv("REDIS_URL"):
        # Stopped, with _var removed, after this process however it ends (testing/reaper.py). PostgreSQL by an
        # immediate shutdown (SIGQUIT): its data goes with _var.
        reaper.start()
        reaper.stop_server(_var / "pg" / "postmaster.pid", "postgres", signal.SIGQUIT)
        reaper.stop_server(_var / "redis.pid", "redis")
        reaper.remove_dir(_var)
    if not os.getenv("DATABASE_URL"):
        os.environ["DATABASE_URL"] = embedded.postgres_url(_var, stop_at_exit=True)
        os.environ["STEADYSTATE_TEST_SERVERS_OF"] = _worker
    if not os.getenv("REDIS_URL"):
        os.environ["REDIS_URL"] = embedded.redis_start(_var, stop_at_exit=True)
        os.environ["STEADYSTATE_TEST_SERVERS_OF"] = _worker

from monitor.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
STATIC_ROOT.mkdir(exist_ok=True)  # noqa: F405 - whitenoise warns on every request without it
# The suite asks for many CSV downloads it does not read to their end (so their slots are not given
# back); dashboards/export/tests/test_export_slots.py sets the production bounds.
EXPORT_PER_USER = EXPORT_PER_PROCESS = 10_000
