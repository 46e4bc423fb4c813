"""A streaming response longer than gunicorn's worker timeout completes under `up`'s web server."""

import http.client
import subprocess
import sys
import time
import urllib.request

from monitor.management.commands.up import gunicorn_args
from testing.mariadb import free_port
from testing.slow_stream import SECONDS

TIMEOUT = 2  # gunicorn's worker timeout in this test: half of the stream's length


def download(extra: list[str]) -> bytes:
    port = free_port()
    opts = {"host": "127.0.0.1", "port": port, "web_workers": 1}
    cmd = [sys.executable, "-m", "gunicorn", "testing.slow_stream:app", *gunicorn_args(opts, "WARNING"),
           "--timeout", str(TIMEOUT), *extra]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=SECONDS * 3) as response:
                    body = b""
                    try:
                        while chunk := response.read(64):
                            body += chunk
                    except (OSError, http.client.HTTPException):  # the worker was killed mid-stream
                        pass
                    return body
            except urllib.error.URLError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_stream_longer_than_the_worker_timeout_completes():
    body = download([])
    assert body.endswith(b"END\n") and body.count(b"row\n") >= SECONDS / 0.25 - 1


def test_the_sync_worker_would_cut_it():
    """The failure this guards against: gunicorn's default worker kills the stream at the timeout."""
    body = download(["--worker-class", "sync", "--threads", "1"])  # more threads would mean gthread
    assert not body.endswith(b"END\n")


def test_a_web_process_keeps_threads_for_the_pages_while_exports_stream(tmp_path):
    from django.conf import settings

    from monitor import gunicorn_conf

    # The product's default, read as `up` would (the test settings raise it).
    done = subprocess.run([sys.executable, "-c", "import monitor.settings as s; print(s.EXPORT_PER_PROCESS)"],
                          cwd=settings.BASE_DIR, env={"PATH": "/usr/bin:/bin", "STEADYSTATE_VAR": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert gunicorn_conf.threads - int(done.stdout.split()[-1]) >= 4, done.stderr
