"""End to end: polls of a real MariaDB, exported as CSV, equal what the store holds."""

import csv
import io
import time
from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from dashboards.export.csv_safe import iso_utc
from servers.models import Server
from store import query

pytestmark = pytest.mark.django_db
POLL_EVERY = 3.0  # seconds from a poll's start to the next one's: a poll and its transactions fit in it under load


def test_it_exports_real_polls_as_the_store_holds_them(client, admin_user, mariadb, monitor_credentials):
    from collectors.batch import poll_server

    client.force_login(admin_user)
    server = Server(name="sandbox", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    mariadb.execute("CREATE DATABASE IF NOT EXISTS export_load",
                    "CREATE TABLE IF NOT EXISTS export_load.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    start = timezone.now() - timedelta(seconds=1)
    spans = []  # each poll's read lies between these two clock readings
    poll_server(server.pk, only=["variables"])  # connects: a server's first poll, which also reads its setup, is slow
    due = time.monotonic()
    for i in range(4):
        # Polls of the exported metrics' sources, POLL_EVERY apart: polls of every source, each 1.05 s after the
        # last one and its transactions, had a loaded machine make the first interval (a first poll took 4 s)
        # over 1.5 times the others, a hole (store.breaks) whose rate every chart and export rightly leaves out.
        time.sleep(max(0.0, due - time.monotonic()))
        before = time.monotonic()
        assert not poll_server(server.pk, only=["global_status", "pfs_waits"]).connect_error
        spans.append((before, time.monotonic()))
        due = before + POLL_EVERY  # not sooner after a late poll: its interval and the next one's stay alike
        if i < 3:  # Explicit transactions: autocommitted statements do not count in Com_commit.
            mariadb.execute(*["BEGIN", f"INSERT INTO export_load.t (v) VALUES ({i})", "COMMIT"] * (10 + 10 * i))
    time.sleep(1.05)
    end = timezone.now()
    params = {"server": "sandbox", "metrics": "tps,Threads_running,wait.time_ps:wait/synch/*", "full": 1,
              "from": iso_utc(start), "to": iso_utc(end)}
    response = client.get("/export.csv", params)
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    header = rows[0]
    assert header[:3] == ["time (UTC)", "sandbox tps (/s)", "sandbox Threads_running (threads)"]
    assert any(h.startswith("sandbox wait.time_ps:wait/synch/") and h.endswith("(s/s)") for h in header)
    (deltas,) = query.series([server.pk], ["tps"], start, end, max_points=10_000, mode="delta")
    (rates,) = query.series([server.pk], ["tps"], start, end, max_points=10_000)
    col = header.index("sandbox tps (/s)")
    got = {r[0]: float(r[col]) for r in rows[1:] if r[col]}
    assert len(got) == len(deltas.values) >= 3
    assert list(got.values()) == pytest.approx(rates.values, rel=1e-5)  # one row a poll, on the poll grid
    assert min(deltas.values) >= 10  # the transactions we ran, at least, in each interval
    # delta / rate is the interval the rate divides by: the time between two polls' reads, whatever the load
    for rate, delta, (was, now) in zip(rates.values, deltas.values, pairwise(spans), strict=True):
        assert now[0] - was[1] - 0.05 < delta / rate < now[1] - was[0] + 0.05
