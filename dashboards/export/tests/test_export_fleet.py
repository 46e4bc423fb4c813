"""The fleet CSV says what the fleet page says beside TPS and the top wait."""

import pytest
from django.utils import timezone

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT, TRX_SUMMARY
from testing import dashboards as data
from testing.dashboards import get_csv, make_server

pytestmark = pytest.mark.django_db


def fleet_csv(client) -> tuple[list[str], dict[str, list[str]]]:
    rows = get_csv(client, "/export/fleet.csv")
    return rows[0], {r[0]: r for r in rows[1:]}


def counted(server, definition: str) -> None:
    """The health row a global_status poll leaves: its note names the TPS counter."""
    now = timezone.now()
    ServerHealth.objects.create(
        server=server,
        last_poll_at=now,
        last_success_at=now,
        sources={"global_status": {"ok": True, "status": "ok", "note": definition}},
    )


def test_it_says_what_tps_counts_and_which_wait_instruments_are_off(admin_client):
    server = data.at_pfs_defaults(data.RECENT_T0, {"wait.instruments_off:wait/io": 3, "wait.instruments:wait/io": 58})
    counted(server, DEFINITIONS[EXPLICIT])
    counted(make_server("summary"), DEFINITIONS[TRX_SUMMARY])
    header, rows = fleet_csv(admin_client)
    tps, waits = header.index("TPS counts"), header.index("wait instruments off (their waits are not counted)")
    assert rows["pfs-defaults"][tps] == "explicit transactions only: autocommit statements are not counted"
    assert rows["pfs-defaults"][waits] == "288 of 288 wait/synch/% and 3 of 58 wait/io/%"
    assert rows["summary"][tps] == "every transaction" and rows["summary"][waits] == ""
    page = admin_client.get("/").content.decode()  # the page's words, the same
    assert "explicit transactions only: autocommit statements are not counted" in page
    assert "288 of 288 wait/synch/% and 3 of 58 wait/io/% instruments off: their waits are not counted" in page
