"""The fleet's replica column: the lag at each replica's last poll, and stopped threads said as such.

Samples are written through the store's ingest as the replication source writes them:
per channel replica.io_running / replica.sql_running (1 = Yes), and replica.lag_s only
while the server reports a lag (NULL with the SQL thread stopped).
"""

from datetime import UTC, datetime, timedelta

import pytest

from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import fleet_replica_cell, get_csv, make_server

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC).replace(microsecond=0)


def replica_poll(server, ago: int, **values: float) -> Sample:
    return Sample(server.pk, "replication", NOW - timedelta(seconds=ago), 10.0, values)


def test_the_fleet_shows_each_replicas_lag_now_and_a_stop_without_a_stale_lag(admin_client):
    lagging, stopped = make_server("lagging"), make_server("stopped")
    make_server("primary")  # never read as a replica
    running = {"replica.io_running": 1, "replica.sql_running": 1}
    write_samples([
        replica_poll(lagging, 20, **running, **{"replica.lag_s": 3}),
        # Two channels in one poll: the larger lag is the server's.
        replica_poll(lagging, 10, **running, **{"replica.lag_s": 42, "replica.io_running:b": 1,
                                                "replica.sql_running:b": 1, "replica.lag_s:b": 7}),
        replica_poll(stopped, 20, **running, **{"replica.lag_s": 5}),
        replica_poll(stopped, 10, **{"replica.io_running": 1, "replica.sql_running": 0}),  # lag NULL: no value
    ])
    body = admin_client.get("/").content.decode()
    assert ">42 s<" in fleet_replica_cell(body, "lagging")
    cell = fleet_replica_cell(body, "stopped")
    assert "stopped: SQL" in cell and "5 s" not in cell  # the lag from before the stop is not the lag now
    assert "not a replica" in fleet_replica_cell(body, "primary")

    rows = get_csv(admin_client, "/export/fleet.csv")
    header, by_name = rows[0], {r[0]: r for r in rows[1:]}
    lag, threads = header.index("replica lag now (s)"), header.index("replica threads stopped")
    assert float(by_name["lagging"][lag]) == 42 and by_name["lagging"][threads] == ""
    assert by_name["stopped"][lag] == "" and by_name["stopped"][threads] == "SQL"
    assert by_name["primary"][lag] == by_name["primary"][threads] == ""
