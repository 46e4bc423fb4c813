"""The fleet CSV says what the fleet page says beside TPS and the top wait."""

from datetime import timedelta

import pytest
from django.utils import timezone

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT, TRX_SUMMARY
from store.ingest import write_samples
from store.sample import Sample
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


def test_its_figures_carry_six_significant_digits_in_the_pages_units(admin_client):
    now = timezone.now().replace(microsecond=0)
    server = make_server("db", poll_interval=10)
    counted(server, DEFINITIONS[TRX_SUMMARY])
    waits = {"wait.time_ps:wait/synch/mutex/innodb/trx_sys_mutex": 2 * 10**12,
             "wait.time_ps:wait/io/file/innodb/innodb_data_file": 10**12}
    write_samples([
        Sample(server.pk, "global_status", now, 7.0, {"tps": 1000}, frozenset({"tps"})),
        Sample(server.pk, "pfs_waits", now, 7.0, waits, frozenset(waits)),
        # History up 7 every 9 s, on a straight line: 7 / 9 * 60 = 46.666... a minute.
        *(Sample(server.pk, "history_length", now - timedelta(seconds=9 * (6 - j)), None,
                 {"history_list_length": 1000 + 7 * j}) for j in range(7)),
    ])
    header, rows = fleet_csv(admin_client)
    row = dict(zip(header, rows["db"], strict=True))
    assert row["TPS now (/s)"] == "142.857"  # 1000 / 7 = 142.857142...: the page says 142.9
    assert row["history trend (per min, since the last turn)"] == "46.6667"
    assert row["history list length now"] == "1042"
    # trx_sys waited 2 s in 7 s (0.285714... s per s), 2 of the 3 s waited (66.666... %).
    assert (row["top wait (s per s)"], row["top wait share (%)"]) == ("0.285714", "66.6667")
    page = admin_client.get("/").content.decode()
    assert "142.9" in page and "↑ 46.7/min" in page and "0.29 s/s · 66.7 %" in page
