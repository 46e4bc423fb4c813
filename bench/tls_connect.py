"""What each TLS mode costs a new connection to a monitored server (the pool reuses it afterwards).

Starts a private MariaDB serving a certificate of a throw-away CA, then opens and
closes N connections as the monitoring user per mode (session guards included,
as the collectors open them) and prints the median and 90th percentile in ms,
with the TLS contexts built once per process (collectors/tls.py caches them).

    .venv/bin/python bench/tls_connect.py [--connections 40]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from collectors.connection import open_connection  # noqa: E402
from collectors.tls import TLS  # noqa: E402
from testing.mariadb import running_sandbox  # noqa: E402
from testing.tls_certs import make_ca  # noqa: E402


def timed(port: int, tls: TLS, n: int) -> list[float]:
    open_connection(host="127.0.0.1", port=port, user="steady", password="s3cret!", tls=tls).close()  # warm
    out = []
    for _ in range(n):
        began = time.perf_counter()
        open_connection(host="127.0.0.1", port=port, user="steady", password="s3cret!", tls=tls).close()
        out.append((time.perf_counter() - began) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        certs = make_ca(Path(folder))
        with running_sandbox("steadystate-bench-tls-", performance_schema=False,
                             extra_args=certs.server_args()) as server:
            print(f"{'mode':<16} {'median ms':>10} {'p90 ms':>8}  ({args.connections} connections each)")
            for mode in ("disabled", "preferred", "required", "verify-ca", "verify-identity"):
                ms = sorted(timed(server.port, TLS(mode, str(certs.ca)), args.connections))
                print(f"{mode:<16} {statistics.median(ms):>10.2f} {ms[int(len(ms) * 0.9)]:>8.2f}")


if __name__ == "__main__":
    main()
