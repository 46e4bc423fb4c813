"""The fleet's state cell of a MariaDB at its defaults (performance_schema OFF): one line saying what is off and
where the server's page says how to turn it on, not each source's paragraph; the CSV keeps every source's words."""

import re

import pytest
from django.utils import timezone

from collectors.models import ServerHealth
from testing import dashboards as data
from testing.dashboards import get_csv
from testing.servers import make_server

pytestmark = pytest.mark.django_db
FIX = "set performance_schema=ON under [mariadb] in the server&#x27;s option file and restart it"


def off(server: str, source: str) -> dict:
    """A source's health entry as require_performance_schema leaves it (collectors/source.py)."""
    return {"ok": False, "status": "off", "error": f"{server}: {source}: performance_schema is OFF on this server, "
            f"so {source} has nothing to read; set performance_schema=ON under [mariadb] in the server's option file "
            "and restart it"}


STATE = r'<td><span class="state.*?</td>'
WAIT = r'<td class="event">.*?</td>'


def fleet_cell(html: str, name: str, pattern: str) -> str:
    """The cell of the server's row on the fleet page that the pattern (STATE, WAIT) finds."""
    row = html.split(f"<strong>{name}</strong>")[1].split("</tr>")[0]
    found = re.search(pattern, row, re.S)
    assert found is not None
    return found.group(0)


def test_performance_schema_off_is_one_line_linking_to_how_to_turn_it_on(admin_client):
    server = make_server("defaults", flavor="mariadb", version="10.11.19")
    now = timezone.now()
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now, sources={
        "global_status": {"ok": True, "status": "ok"},
        "pfs_waits": off("defaults", "pfs_waits"), "statements": off("defaults", "statements"),
        "wait_instruments": off("defaults", "wait_instruments"),
        "innodb_mutex": {"ok": False, "status": "off", "error": "defaults: innodb_mutex: MariaDB 10.6+ has no SHOW "
                         "ENGINE INNODB MUTEX output and performance_schema is OFF: set performance_schema=ON under "
                         "[mariadb] in the server's option file (with wait/synch/% instruments) and restart it to "
                         "see InnoDB latch waits"},
        "history_length": {"ok": False, "status": "failed", "error": "defaults: history_length: timed out"}})
    cell = fleet_cell(admin_client.get("/").content.decode(), "defaults", STATE)
    stability = f"/servers/{server.pk}/stability/"
    assert cell == (
        '<td><span class="state state-up">up</span>\n        '
        '<div class="small warn pfs-off">performance_schema is OFF: no innodb_mutex, pfs_waits, statements, '
        f'wait_instruments · <a href="{stability}#source-problem">how to turn it on</a></div>'
        '<div class="small warn">defaults: history_length: timed out</div></td>')
    # Where the link leads: the note that says how.
    page = admin_client.get(stability).content.decode()
    assert re.search(r'id="source-problem"[^>]*>[^<]*' + re.escape(FIX), page)
    # The CSV keeps each source's own words.
    (row,) = [r for r in get_csv(admin_client, "/export/fleet.csv") if r and r[0] == "defaults"]
    assert row[3].count("performance_schema is OFF") == 4 and "history_length: timed out" in row[3]


def test_wait_instruments_off_are_said_in_the_top_wait_cell_with_where_to_turn_them_on(admin_client):
    """performance_schema ON at MariaDB's defaults: the newest poll found all 288 wait/synch instruments off and 3 of
    58 wait/io ones, so "top wait now" ranks only what is left (no mutex or rwlock wait can be the top one)."""
    server = data.at_pfs_defaults(data.RECENT_T0, {"wait.instruments_off:wait/io": 3, "wait.instruments:wait/io": 58})
    cell = fleet_cell(admin_client.get("/").content.decode(), "pfs-defaults", WAIT)
    assert ('<div class="small warn waits-off">288 of 288 wait/synch/% and 3 of 58 wait/io/% instruments off: '
            f'their waits are not counted · <a href="/servers/{server.pk}/waits/?range=15m">how to turn them on</a>'
            '</div>') in cell


def test_a_server_with_every_wait_instrument_on_gets_no_such_line(admin_client):
    data.at_pfs_defaults(data.RECENT_T0, {"wait.instruments_off:wait/synch": 0})
    assert "waits-off" not in fleet_cell(admin_client.get("/").content.decode(), "pfs-defaults", WAIT)
