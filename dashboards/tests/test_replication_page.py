"""The replication page: lag and threads per channel, and what the source said last."""

from datetime import UTC, datetime, timedelta

import pytest

from collectors.models import ServerHealth
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import EVIL, figures, make_server

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
RANGE = "from=2026-03-02T09:00:00Z&to=2026-03-02T09:05:00Z"


def test_it_draws_each_channels_lag_and_threads(admin_client):
    server = make_server()
    write_samples([Sample(server.pk, "replication", T0 + timedelta(seconds=10 * i), 10.0,
                          {"replica.lag_s": 3 * i, "replica.io_running": 1, "replica.sql_running": int(i < 5),
                           "replica.lag_s:audit": 1, "replica.io_running:audit": 1, "replica.sql_running:audit": 1})
                   for i in range(1, 9)])
    ServerHealth.objects.create(server=server, sources={"replication": {
        "ok": True, "note": f"replication: I/O thread Yes, SQL thread No, lag n/a (SQL error: {EVIL})",
        "at": (T0 + timedelta(microseconds=123456)).isoformat()}})
    response = admin_client.get(f"/servers/{server.pk}/replication/?{RANGE}")
    body = response.content.decode()
    fig = figures(response)["replication-chart"]
    assert next(t for t in fig["data"] if t["name"] == "lag s (default)")["y"] == [3 * i for i in range(1, 9)]
    assert next(t for t in fig["data"] if t["name"] == "SQL thread (default)")["y"] == [1] * 4 + [0] * 4
    assert {"lag s (audit)", "I/O thread (audit)"} <= {t["name"] for t in fig["data"]}
    assert "SQL thread No" in body and EVIL not in body
    assert "as read at 2026-03-02 09:00:00 UTC (" in body  # as the other pages write a time, to the second


def test_a_read_time_it_cannot_parse_is_left_out(admin_client):
    server = make_server()
    ServerHealth.objects.create(server=server, sources={"replication": {"ok": True, "note": "x", "at": "soon"}})
    response = admin_client.get(f"/servers/{server.pk}/replication/")
    assert response.status_code == 200 and b"as read at" not in response.content


def test_a_server_that_is_no_replica_says_so(admin_client):
    server = make_server()
    ServerHealth.objects.create(server=server, sources={"replication": {
        "ok": True, "note": "not a replica (no replication channel configured)"}})
    response = admin_client.get(f"/servers/{server.pk}/replication/")
    assert response.status_code == 200 and b"not a replica" in response.content
    assert "replication-chart" not in figures(response)
