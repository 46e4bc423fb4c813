"""TPS for a monitoring user without SELECT on performance_schema, on the test MariaDB (transaction instrument off).

setup_instruments is refused whether the instrument is on or off: the collector falls back to Com_commit +
Com_rollback, and what it then advises for performance_schema is the GRANT, not the UPDATE it could not run.
"""

import pytest

from collectors import transactions
from collectors.batch import poll_server
from collectors.probe import PFS_SELECT, check_connection
from dashboards.server_texts import health_sources, tps_basis_of
from servers.models import Server

USER, PASSWORD = "tps_nopfs", "np-pfs"
UPDATE = "UPDATE performance_schema.setup_instruments"
PFS_GRANT = ("give the monitoring user the SELECT on performance_schema that its transaction summary "
             "(performance_schema.setup_instruments, events_transactions_summary_global_by_event_name) needs: "
             "GRANT SELECT ON performance_schema.* TO the monitoring user (docs/privileges.md)")
# Written out by hand: MariaDB 10.11 with performance_schema ON, InnoDB's trx counters off (the default).
NOTE_HINT = (f"to count autocommit transactions too, {PFS_GRANT} or turn on InnoDB's counters "
             "(SET GLOBAL innodb_monitor_enable='trx_%')")
FIX = (f"to count autocommit transactions too, {PFS_GRANT}; or run SET GLOBAL innodb_monitor_enable='trx_%' "
       "(and add innodb_monitor_enable=trx_% to the server configuration, or where it has an "
       "innodb_monitor_enable line already, add ,trx_% to the end of its list (inside its quotes, before any # "
       "comment): a second line replaces the first)")


@pytest.fixture
def no_pfs_select(mariadb):
    """Every privilege of docs/privileges.md but SELECT on performance_schema."""
    mariadb.create_monitor_user(USER, PASSWORD, grants=False)
    mariadb.execute(f"GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO '{USER}'@'%'")
    yield {"host": "127.0.0.1", "port": mariadb.port, "user": USER, "password": PASSWORD}
    mariadb.execute(f"DROP USER '{USER}'@'%'")


def test_the_pages_name_the_missing_select_on_performance_schema_not_the_update(no_pfs_select, make_server):
    server = make_server("no-pfs-select", no_pfs_select["port"], user=USER, password=PASSWORD)
    outcome = poll_server(server.id, only=["global_status"]).sources[0]
    assert outcome.ok, outcome.error
    assert outcome.note == f"{transactions.DEFINITIONS[transactions.EXPLICIT]}; {NOTE_HINT}"
    server = Server.objects.get(pk=server.pk)
    basis = tps_basis_of(server, health_sources(server))
    assert basis.short == "explicit transactions only" and basis.explicit_only
    assert basis.fix == FIX


def test_test_connection_names_select_on_performance_schema_as_what_tps_needs(no_pfs_select):
    result = check_connection(**no_pfs_select)
    assert result.missing == [PFS_SELECT]
    assert result.info.tps_basis == transactions.EXPLICIT
    tps = [w for w in result.weakened if w.figure == "TPS"]
    assert len(tps) == 1 and tps[0].fix == FIX and UPDATE not in tps[0].fix


@pytest.fixture
def transaction_instrument(mariadb):
    """performance_schema's transaction instrument on (the suite's MariaDB leaves it off), for one test."""
    mariadb.execute("UPDATE performance_schema.setup_instruments SET ENABLED='YES' WHERE NAME='transaction'")
    yield
    mariadb.execute("UPDATE performance_schema.setup_instruments SET ENABLED='NO' WHERE NAME='transaction'")


def test_a_select_revoked_under_a_kept_connection_names_the_grant_not_the_update(mariadb, make_server,
                                                                                  transaction_instrument):
    """Seen live: with the transaction summary counting TPS, SELECT on performance_schema revoked from the
    monitoring user; the worker's connection kept its basis, its read of the summary was refused, and the fleet
    told the user to run the UPDATE that turns the instrument on, which was on all along."""
    mariadb.create_monitor_user(USER, PASSWORD)
    try:
        server = make_server("pfs-select-revoked", mariadb.port, user=USER, password=PASSWORD)
        outcome = poll_server(server.id, only=["global_status"]).sources[0]
        assert outcome.note == transactions.DEFINITIONS[transactions.TRX_SUMMARY]
        mariadb.execute(f"REVOKE SELECT ON performance_schema.* FROM '{USER}'@'%'")
        outcome = poll_server(server.id, only=["global_status"]).sources[0]  # the same pooled connection
        assert outcome.ok, outcome.error
        assert outcome.note == f"{transactions.DEFINITIONS[transactions.EXPLICIT]}; {NOTE_HINT}"
    finally:
        mariadb.execute(f"DROP USER '{USER}'@'%'")
