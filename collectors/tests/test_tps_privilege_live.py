"""TPS for a monitoring user without PROCESS on the test MariaDB, with InnoDB's trx counters on.

INNODB_METRICS needs PROCESS: the collector falls back to Com_commit + Com_rollback, and what it then
advises is the GRANT, not the SET GLOBAL that is already in effect.
"""

import pytest

from collectors import transactions
from collectors.batch import poll_server
from collectors.probe import PROCESS, check_connection
from dashboards.server_texts import health_sources, tps_basis_of
from servers.models import Server

USER, PASSWORD = "tps_noprocess", "np-tps"
GRANT = "GRANT PROCESS ON *.* TO the monitoring user (docs/privileges.md)"
TRX_ON = "SET GLOBAL innodb_monitor_enable='trx_%'"
# Written out by hand: MariaDB 10.11 with performance_schema ON and its transaction instrument off (the default).
FIX = ("to count autocommit transactions too, run UPDATE performance_schema.setup_instruments SET ENABLED='YES' "
       "WHERE NAME='transaction' (and add performance-schema-instrument='transaction=ON' to the server "
       "configuration); or give the monitoring user the PROCESS privilege that InnoDB's trx_*_commits counters "
       "(information_schema.INNODB_METRICS) need: GRANT PROCESS ON *.* TO the monitoring user (docs/privileges.md)")


INNODB_TRX = ("trx_rw_commits", "trx_ro_commits", "trx_nl_ro_commits")


@pytest.fixture
def no_process(mariadb):
    """Every privilege of docs/privileges.md but PROCESS."""
    mariadb.execute(*[f"SET GLOBAL innodb_monitor_enable = '{name}'" for name in INNODB_TRX])
    mariadb.create_monitor_user(USER, PASSWORD, grants=False)
    mariadb.execute(f"GRANT BINLOG MONITOR, SLAVE MONITOR ON *.* TO '{USER}'@'%'",
                    f"GRANT SELECT ON performance_schema.* TO '{USER}'@'%'")
    yield {"host": "127.0.0.1", "port": mariadb.port, "user": USER, "password": PASSWORD}
    mariadb.execute(f"DROP USER '{USER}'@'%'",
                    *[f"SET GLOBAL innodb_monitor_disable = '{name}'" for name in INNODB_TRX])


def test_the_pages_name_the_missing_process_privilege_not_the_statement_already_run(no_process, make_server):
    server = make_server("no-process", no_process["port"], user=USER, password=PASSWORD)
    outcome = poll_server(server.id, only=["global_status"]).sources[0]
    assert outcome.ok, outcome.error
    assert outcome.note.startswith(f"{transactions.DEFINITIONS[transactions.EXPLICIT]}; ")
    assert GRANT in outcome.note and "innodb_monitor_enable" not in outcome.note
    server = Server.objects.get(pk=server.pk)
    basis = tps_basis_of(server, health_sources(server))
    assert basis.short == "explicit transactions only" and basis.explicit_only
    assert basis.fix == FIX


def test_test_connection_names_process_as_what_tps_needs(no_process):
    result = check_connection(**no_process)
    assert result.missing == [PROCESS] and result.grant == f"GRANT PROCESS ON *.* TO '{USER}'@'%';"
    assert result.info.tps_basis == transactions.EXPLICIT
    tps = [w for w in result.weakened if w.figure == "TPS"]
    assert len(tps) == 1 and tps[0].fix == FIX and TRX_ON not in tps[0].fix
