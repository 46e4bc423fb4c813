"""A server with performance_schema OFF (MariaDB's default) has no wait to draw: the stability and waits pages
keep the note saying why and how to turn it on, and no longer describe waits as drawn or ranked under it."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from collectors.models import ServerHealth
from dashboards.server_texts import families_off
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
POLLS = 6
OFF = ("ps-off: pfs_waits: performance_schema is OFF on this server, so pfs_waits has nothing to read; "
       "set performance_schema=ON under [mariadb] in the server's option file and restart it")
TIMER = "wait.time_ps:wait/io/file/innodb/innodb_data_file"


def window() -> dict:
    return {"from": T0.isoformat(), "to": (T0 + timedelta(seconds=10 * POLLS + 2)).isoformat()}


def polls(server_id: int, values: dict, source: str) -> list[Sample]:
    return [Sample(server_id, source, T0 + timedelta(seconds=10 * i), 10.0, values, frozenset(values))
            for i in range(1, POLLS + 1)]


@pytest.fixture
def ps_off():
    """The health row a poll of the machine's MariaDB 10.11 (performance_schema OFF) stores, and its TPS."""
    server = data.make_server("ps-off", poll_interval=10, flavor="mariadb", version="10.11.19")
    write_samples(polls(server.pk, {"tps": 100, "qps": 400}, "global_status"))
    ServerHealth.objects.create(server=server, sources={
        "global_status": {"ok": True, "status": "ok"}, "pfs_waits": {"ok": False, "status": "off", "error": OFF}})
    return server


def test_it_says_no_wait_is_drawn_on_the_stability_page(admin_client, ps_off):
    body = admin_client.get(f"/servers/{ps_off.pk}/stability/", window()).content.decode()
    assert escape(OFF) in body  # the note saying why and how stays
    assert "SUM_TIMER_WAIT deltas" not in body and "are not ranked" not in body
    assert "Waits: none was read in this range, so none is drawn (the note above says why)." in body


def test_it_does_not_ask_whether_performance_schema_is_on_on_the_waits_page(admin_client, ps_off):
    body = admin_client.get(f"/servers/{ps_off.pk}/waits/", window()).content.decode()
    assert escape(OFF) in body
    assert "is performance_schema ON" not in body and "Condition waits" not in body
    assert "No wait events recorded for ps-off in this interval: the note above says why." in body


def test_it_keeps_the_explanation_where_waits_were_read(admin_client):
    server = data.make_server("ps-on", poll_interval=10)
    write_samples(polls(server.pk, {"tps": 100}, "global_status") + polls(server.pk, {TIMER: 3 * 10**10}, "pfs_waits"))
    stability = admin_client.get(f"/servers/{server.pk}/stability/", window()).content.decode()
    assert "Waits: performance_schema SUM_TIMER_WAIT deltas, top 8 over the range." in stability
    assert "none was read" not in stability
    waits = admin_client.get(f"/servers/{server.pk}/waits/", window()).content.decode()
    assert "Condition waits" in waits and "No wait events recorded" not in waits


def test_metadata_lock_waits_left_uncounted_point_to_the_statements_lock_time(admin_client):
    """MariaDB with performance_schema ON leaves wait/synch off: a session blocked on a metadata lock makes no row
    here, but its statement's lock time holds the wait (dashboards.analysis.wait_statements)."""
    server = data.make_server("synch-off", poll_interval=10, flavor="mariadb", version="10.11.19")
    gauges = {"wait.instruments_off:wait/synch": 310, "wait.instruments:wait/synch": 310}
    write_samples(polls(server.pk, {"tps": 100}, "global_status") + polls(server.pk, {TIMER: 3 * 10**10}, "pfs_waits")
                  + [Sample(server.pk, "wait_instruments", T0 + timedelta(seconds=10 * i), 10.0, gauges, frozenset())
                     for i in range(1, POLLS + 1)])
    body = admin_client.get(f"/servers/{server.pk}/waits/", window()).content.decode()
    assert "Sessions blocked on a metadata lock" in body
    assert "order=lock&amp;wait=wait%2Fsynch%2Fcond%2Fsql%2FMDL_context%3A%3ACOND_wait_status" in body
    other = data.make_server("synch-on", poll_interval=10, flavor="mariadb", version="10.11.19")
    write_samples(polls(other.pk, {"tps": 100}, "global_status") + polls(other.pk, {TIMER: 3 * 10**10}, "pfs_waits"))
    assert "Sessions blocked" not in admin_client.get(f"/servers/{other.pk}/waits/", window()).content.decode()


def test_a_mysql_55_server_is_not_told_an_option_file_line_it_cannot_start_with():
    """performance-schema-instrument came with MySQL 5.6.4: on 5.5 the option file line stops the server."""
    server = data.make_server("old-55", poll_interval=10, flavor="mysql", version="5.5.62-log")
    gauges = {"wait.instruments_off:wait/synch": 150, "wait.instruments:wait/synch": 190}
    write_samples([Sample(server.pk, "wait_instruments", T0 + timedelta(seconds=10 * i), 10.0, gauges, frozenset())
                   for i in range(1, POLLS + 1)])
    said = families_off(server.pk, T0, T0 + timedelta(seconds=10 * POLLS + 2))
    assert said == {"wait/synch": (
        "150 of 190 wait/synch/% instruments (enabled and timed) off in every poll of this range: waits of the "
        "instruments that are off are not counted: the waits rows and top-waits tables leave them out (and the "
        "MariaDB 10.6+ mutex row); run UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' "
        "WHERE NAME LIKE 'wait/synch/%' (again after each restart: MySQL 5.5.62 has no option that keeps it in the "
        "server configuration)")}
