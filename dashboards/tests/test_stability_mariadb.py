"""The stability page over real MariaDB polls (performance_schema latches, the 10.6+ fallback)."""

import time
from datetime import timedelta

import pytest

from dashboards.figures.common import iso
from servers.models import Server
from testing.dashboards import figures

pytestmark = pytest.mark.django_db
HALF_SECOND = timedelta(milliseconds=500)
LOAD = ["BEGIN", "INSERT INTO stab_load.t (v) VALUES (1)", "COMMIT"] * 30


def figure(response) -> dict:
    return figures(response)["stability-chart"]


@pytest.fixture
def demo(mariadb, monitor_credentials) -> Server:
    server = Server(name="demo", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=5)
    server.password = monitor_credentials["password"]
    server.save()
    mariadb.execute("CREATE DATABASE IF NOT EXISTS stab_load",
                    "CREATE TABLE IF NOT EXISTS stab_load.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    return server


def mutex_polls(mariadb, server: Server, n: int, pause: float) -> list:
    """n forced polls of innodb_mutex (every 60 s by default) under a little load; their sample times."""
    from collectors.batch import poll_server

    times = []
    for _ in range(n):
        mariadb.execute(*LOAD)
        (source,) = poll_server(server.pk, only=["innodb_mutex"]).sources
        assert source.ok, source.error
        times.append(source.sample.ts if source.sample else None)
        time.sleep(pause)
    return times


def test_mutex_waits_show_in_a_range_between_two_polls_of_their_source(client, admin_user, mariadb, demo):
    client.force_login(admin_user)
    _, second, third = mutex_polls(mariadb, demo, 3, 2.5)
    # A zoomed range that falls between two polls of the slow source: no sample inside, both cover it.
    start, end = iso(second + HALF_SECOND)[:23], iso(third - HALF_SECOND)[:23]
    response = client.get(f"/servers/{demo.pk}/stability/", {"from": start, "to": end})
    fig = figure(response)
    mutexes = [t["name"] for t in fig["data"] if t["yaxis"] == "y3"]
    assert mutexes and all(n.startswith("wait/synch/") and "/innodb/" in n for n in mutexes)
    notes = [a["text"] for a in fig["layout"]["annotations"]]
    assert not any("no InnoDB mutex waits" in n for n in notes)
    assert fig["layout"]["xaxis"]["range"][0].startswith(start[:19])  # the axis stays the page's range
