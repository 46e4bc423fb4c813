"""A server left at its defaults (performance_schema OFF): its waits pages and its runs' reports say why they are
empty and what to set, as the statements page already did, instead of asking whether performance_schema is ON."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from collectors.models import ServerHealth
from servers.models import Run
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
# As a poll of MariaDB 10.11 with performance_schema OFF stored it (the machine's own server on 3306).
OFF = ("defaults: pfs_waits: performance_schema is OFF on this server, so pfs_waits has nothing to read; "
       "set performance_schema=ON under [mariadb] in the server's option file and restart it")


@pytest.mark.parametrize("page", ["waits", "stability"])
def test_the_waits_pages_say_performance_schema_is_off_and_how_to_turn_it_on(admin_client, page):
    server = data.make_server("defaults", poll_interval=10, flavor="mariadb", version="10.11.19")
    ServerHealth.objects.create(server=server, sources={
        "global_status": {"ok": True, "status": "ok"}, "pfs_waits": {"ok": False, "status": "off", "error": OFF}})
    window = {"from": T0.isoformat(), "to": (T0 + timedelta(minutes=5)).isoformat()}
    body = admin_client.get(f"/servers/{server.pk}/{page}/", window).content.decode()
    assert escape(OFF) in body and "defaults: defaults:" not in body  # the error names the server once


def test_a_server_whose_waits_are_read_says_nothing_of_the_source(admin_client):
    server = data.make_server("counted", poll_interval=10, flavor="mariadb", version="10.11.19")
    ServerHealth.objects.create(server=server, sources={"pfs_waits": {"ok": True, "status": "ok", "error": ""}})
    body = admin_client.get(f"/servers/{server.pk}/waits/").content.decode()
    assert "source-problem" not in body


def test_the_run_report_says_why_its_waits_and_statements_are_empty(admin_client):
    server = data.make_server("defaults", poll_interval=10, flavor="mariadb", version="10.11.19")
    statements_off = OFF.replace("pfs_waits", "statements")
    ServerHealth.objects.create(server=server, sources={
        "global_status": {"ok": True, "status": "ok"}, "pfs_waits": {"ok": False, "status": "off", "error": OFF},
        "statements": {"ok": False, "status": "off", "error": statements_off}})
    data.write_polls(server, 30, end=T0 + timedelta(minutes=5), events=())  # no wait read: performance_schema OFF
    run = Run.objects.create(name="r", server=server, started_at=T0, ended_at=T0 + timedelta(minutes=5))
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    waits = body.split('id="top-statements"')[0]
    statements = body.split('id="top-statements"')[1].split("</section>")[0]
    assert escape(OFF) in waits and "performance_schema is off, or the pfs_waits source failed" not in waits
    assert escape(statements_off) in statements and "statements_digest consumer is off" not in statements


def test_the_compare_page_says_why_a_runs_waits_and_statements_are_empty(admin_client):
    server = data.make_server("defaults", poll_interval=10, flavor="mariadb", version="10.11.19")
    statements_off = OFF.replace("pfs_waits", "statements")
    ServerHealth.objects.create(server=server, sources={
        "pfs_waits": {"ok": False, "status": "off", "error": OFF},
        "statements": {"ok": False, "status": "off", "error": statements_off}})
    data.write_polls(server, 30, end=T0 + timedelta(minutes=5), events=())  # no wait read: performance_schema OFF
    run = Run.objects.create(name="r", server=server, started_at=T0, ended_at=T0 + timedelta(minutes=5))
    body = admin_client.get("/compare/", {"runs": run.pk}).content.decode()
    assert f"none recorded: {escape(OFF)}" in body
    assert f"none inside the run: {escape(statements_off)}" in body


def test_the_run_report_says_which_wait_instruments_were_off_during_the_run(admin_client):
    """performance_schema ON at MariaDB's defaults: all 288 wait/synch instruments off, so no mutex or rwlock waits."""
    server = data.at_pfs_defaults(T0, {"wait.instruments_off:wait/io": 3, "wait.instruments:wait/io": 58})
    end = T0 + timedelta(minutes=5)
    run = Run.objects.create(name="r", server=server, started_at=T0, ended_at=end)
    waits = admin_client.get(f"/runs/{run.pk}/report/").content.decode().split('id="top-statements"')[0]
    assert "288 of 288 wait/synch/% instruments (enabled and timed) off in every poll" in waits
    assert "3 of 58 wait/io/% instruments (enabled and timed) off in every poll" in waits
    assert escape("SET ENABLED='YES', TIMED='YES' WHERE NAME LIKE 'wait/synch/%'") in waits


def test_the_compare_page_says_which_wait_instruments_were_off_during_each_run(admin_client):
    """As the run report: at MariaDB's defaults (performance_schema ON) all 288 wait/synch instruments are off."""
    server = data.at_pfs_defaults(T0)
    end = T0 + timedelta(minutes=5)
    first = Run.objects.create(name="a", server=server, started_at=T0, ended_at=T0 + timedelta(minutes=2))
    second = Run.objects.create(name="b", server=server, started_at=T0 + timedelta(minutes=3), ended_at=end)
    body = admin_client.get("/compare/", {"runs": f"{first.pk},{second.pk}"}).content.decode()
    assert body.count("288 of 288 wait/synch/% instruments (enabled and timed) off in every poll") == 2
