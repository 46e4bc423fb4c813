"""The stability page's note on a TPS counter change names the cause the data shows: the better counter's read
refused (the latest poll's note names the GRANT), a restart (Uptime began again), else a counter turned on or off."""

import html
from datetime import timedelta

import pytest

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT, TRX_SUMMARY_GRANT
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
# As the collector stores them: tps is the delta of the first counter the poll read, stored beside it.
SUMMARY_POLL = {"tps": 2_000, "tps_trx_summary": 2_000, "tps_explicit": 0}
INNODB_POLL = {"tps": 2_000, "tps_innodb": 2_000, "tps_explicit": 0}
EXPLICIT_POLL = {"tps": 0, "tps_explicit": 0}
TURNED = "the transaction instrument or InnoDB's trx counters were turned on or off meanwhile"


def server_with(polls: list[dict], uptimes: list[int] | None = None, note: str = DEFINITIONS[EXPLICIT]):
    """A MariaDB 10.11 polled every 5 s from T0 + 5 s, with Uptime as given, its health row's note `note`."""
    server = data.make_server("changed", poll_interval=5, flavor="mariadb", version="10.11.19")
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0,
                          {**values, **({"Uptime": uptimes[i - 1]} if uptimes else {})}, frozenset(values))
                   for i, values in enumerate(polls, start=1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": note}})
    return server


def note_of(admin_client, server) -> str:
    params = {"from": T0.isoformat(), "to": (T0 + timedelta(seconds=5 * 12 + 2)).isoformat()}
    body = html.unescape(admin_client.get(f"/servers/{server.pk}/stability/", params).content.decode())
    start = body.index("Part of this range's TPS was counted by another counter")
    return body[start:body.index("</span>", start)]


def test_a_refused_read_names_the_grant_not_a_counter_turned_off(admin_client):
    # The collector's note after SELECT on performance_schema was revoked (collectors' test_tps_pfs_privilege_live).
    refused = (f"{DEFINITIONS[EXPLICIT]}; to count autocommit transactions too, {TRX_SUMMARY_GRANT} or turn on "
               "InnoDB's counters (SET GLOBAL innodb_monitor_enable='trx_%')")
    server = server_with([SUMMARY_POLL] * 6 + [EXPLICIT_POLL] * 6, note=refused)
    said = note_of(admin_client, server)
    assert said == ("Part of this range's TPS was counted by another counter (the monitoring user's read of "
                    "performance_schema's transaction summary was refused, as the latest poll says (a grant "
                    "revoked): give the monitoring user the SELECT on performance_schema that its transaction "
                    "summary (performance_schema.setup_instruments, events_transactions_summary_global_by_event_name)"
                    " needs: GRANT SELECT ON performance_schema.* TO the monitoring user (docs/privileges.md)): "
                    "the line changes meaning where the counter changed.")


def test_a_restart_with_another_configuration_says_when(admin_client):
    # Uptime 100 s at T0 + 5 s, on by 5 s a poll; at T0 + 35 s it reads 3 s: the server booted at T0 + 32 s.
    uptimes = [100 + 5 * i for i in range(6)] + [3 + 5 * i for i in range(6)]
    server = server_with([INNODB_POLL] * 6 + [EXPLICIT_POLL] * 6, uptimes)
    boot = T0 + timedelta(seconds=32)
    assert note_of(admin_client, server) == (
        f"Part of this range's TPS was counted by another counter (the server restarted at {boot:%H:%M:%S} UTC "
        "(Uptime began again) with another configuration: InnoDB transactions counted before, explicit "
        "transactions only after): the line changes meaning where the counter changed.")


def test_a_change_without_restart_or_refusal_says_a_counter_was_turned_on_or_off(admin_client):
    uptimes = [100 + 5 * i for i in range(12)]  # no restart
    server = server_with([INNODB_POLL] * 6 + [EXPLICIT_POLL] * 6, uptimes)
    assert note_of(admin_client, server) == (f"Part of this range's TPS was counted by another counter ({TURNED}): "
                                             "the line changes meaning where the counter changed.")
