"""The Scalability page says where the waits per transaction leave out instruments that were off (MariaDB with
performance_schema ON at its other defaults: every wait/synch instrument off), as the waits and stability pages
do: its "wait that grows most" then never names a latch or a mutex, however much threads contend on one."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server
from testing.scalability import write_sweep

pytestmark = pytest.mark.django_db
OFF_NOTE = "288 of 288 wait/synch/% instruments (enabled and timed) off in every poll of this range"


def sweep_on(name: str, synch_off: int) -> None:
    """A 1/2/4-thread sweep whose minutely instrument reads found `synch_off` of the 288 wait/synch ones off."""
    server = make_server(name, poll_interval=10, flavor="mariadb", version="10.11.19")
    write_sweep(server, name, "", RECENT_T0, {1: 1000, 2: 1900, 4: 3000})
    counts = {"wait.instruments_off:wait/synch": synch_off, "wait.instruments:wait/synch": 288}
    write_samples([Sample(server.pk, "wait_instruments", RECENT_T0 + timedelta(seconds=60 * k), None, counts)
                   for k in range(8)])


@pytest.mark.parametrize("url", ["/scalability/", "/reports/scalability/"])
def test_a_sweep_whose_latch_waits_were_off_says_so(admin_client, url):
    sweep_on("defaults", synch_off=288)
    body = admin_client.get(url, {"sweep": "defaults"}).content.decode()
    assert "defaults: these waits, and the wait that grows most below, leave out" in body
    assert escape(OFF_NOTE) in body


def test_a_sweep_with_every_wait_instrument_on_says_nothing(admin_client):
    sweep_on("all-on", synch_off=0)
    body = admin_client.get("/scalability/", {"sweep": "all-on"}).content.decode()
    assert "leave out what its server did not count" not in body


@pytest.mark.parametrize("url", ["/scalability/", "/reports/scalability/"])
def test_a_sweep_with_no_wait_summary_says_its_waits_are_unknown_not_that_none_grew(admin_client, url):
    """Seen live: a sysbench sweep on MariaDB 10.11 at its defaults (performance_schema OFF) read "No wait grew
    per transaction from level to level" and "no wait grew" at every step, of waits never read. By construction
    no pfs_waits poll lies in any level."""
    server = make_server("pfs-off", poll_interval=10, flavor="mariadb", version="10.11.19")
    write_sweep(server, "pfs-off", "", RECENT_T0, {1: 1000, 2: 1900, 4: 3000}, waits_read=False)
    body = admin_client.get(url, {"sweep": "pfs-off"}).content.decode()
    assert "Which wait grows cannot be said: no poll of the wait summary" in body
    assert "No wait grew per transaction" not in body and "no wait grew" not in body


def test_a_sweep_whose_waits_were_read_still_ranks_the_wait_that_grew(admin_client):
    server = make_server("pfs-on", poll_interval=10, flavor="mariadb", version="10.11.19")
    write_sweep(server, "pfs-on", "", RECENT_T0, {1: 1000, 2: 1900, 4: 3000})
    body = admin_client.get("/scalability/", {"sweep": "pfs-on"}).content.decode()
    assert "Which wait grows cannot be said" not in body
    assert "bottleneck-verdict" in body
