"""Test connection against the sandbox MariaDB, and GRANT parsing for versions that cannot run here."""

import pymysql
import pytest

from collectors import transactions, weakened
from collectors.connection import ServerInfo
from collectors.probe import (
    PFS_SELECT,
    PROCESS,
    REPLICATION_CLIENT,
    CheckResult,
    check_connection,
    grant_statement,
    missing_privileges,
    privileges_in_grants,
)
from collectors.tests.recorded import RecordedConnection, mysql
from testing.mariadb import free_port

MYSQL_80 = ServerInfo("mysql", "8.0.36", (8, 0, 36), True)
MARIADB_1011 = ServerInfo("mariadb", "10.11.6-MariaDB", (10, 11, 6), True)
MARIADB_103 = ServerInfo("mariadb", "10.3.39-MariaDB", (10, 3, 39), True)
MARIADB_1054 = ServerInfo("mariadb", "10.5.4-MariaDB", (10, 5, 4), True)


def test_it_reports_flavor_version_and_performance_schema(monitor_credentials):
    result = check_connection(**monitor_credentials)
    assert result.ok, result.error
    assert result.info.flavor == "mariadb"
    assert "MariaDB" in result.info.version
    assert result.info.performance_schema is True
    assert result.missing == []
    assert result.account == "'steady'@'%'"
    assert result.lines()[0].startswith("connection OK: MariaDB ")
    # The suite's MariaDB is 10.5.9+: the names docs/privileges.md grants there, not REPLICATION CLIENT.
    assert "privileges: all present (PROCESS, BINLOG MONITOR, SLAVE MONITOR, SELECT ON performance_schema.*)" in (
        result.lines())


def test_it_lists_missing_privileges_and_the_grant_that_fixes_them(mariadb):
    mariadb.create_monitor_user("nogrants", "pw-nogrants", grants=False)
    creds = {"host": "127.0.0.1", "port": mariadb.port, "user": "nogrants", "password": "pw-nogrants"}
    result = check_connection(**creds)
    assert result.connected and not result.ok
    assert result.missing == [PROCESS, REPLICATION_CLIENT, PFS_SELECT]
    # MariaDB 10.5+ spells REPLICATION CLIENT as BINLOG MONITOR; 10.5.9+ reads replica status with SLAVE MONITOR.
    assert result.grant == ("GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO 'nogrants'@'%'; "
                            "GRANT SELECT ON performance_schema.* TO 'nogrants'@'%';")
    # The statement we print is the one that fixes it.
    mariadb.execute(*[s + ";" for s in result.grant.split("; ") if s.rstrip(";")])
    assert check_connection(**creds).ok


def test_it_reports_a_single_missing_privilege(mariadb):
    mariadb.create_monitor_user("onlypfs", "pw-onlypfs", grants=False)
    mariadb.execute("GRANT SELECT ON performance_schema.* TO 'onlypfs'@'%'", "GRANT PROCESS ON *.* TO 'onlypfs'@'%'")
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="onlypfs", password="pw-onlypfs")
    assert result.missing == [REPLICATION_CLIENT]
    assert result.grant == "GRANT BINLOG MONITOR, SLAVE MONITOR ON *.* TO 'onlypfs'@'%';"
    assert "missing privileges: BINLOG MONITOR, SLAVE MONITOR" in result.lines()


def test_binlog_monitor_alone_cannot_read_replica_status_on_mariadb_1059(mariadb):
    mariadb.create_monitor_user("binlogonly", "pw-binlogonly", grants=False)
    mariadb.execute("GRANT PROCESS, BINLOG MONITOR ON *.* TO 'binlogonly'@'%'",
                    "GRANT SELECT ON performance_schema.* TO 'binlogonly'@'%'")
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="binlogonly", password="pw-binlogonly")
    assert result.missing == [REPLICATION_CLIENT]
    mariadb.execute(result.grant)
    assert check_connection(host="127.0.0.1", port=mariadb.port, user="binlogonly", password="pw-binlogonly").ok


def test_a_user_who_may_not_read_performance_schema_is_not_told_its_setup_is_all_on(mariadb):
    """performance_schema ON, but the user lacks SELECT on it: the consumers and wait instruments cannot be read,
    so Test connection must not list none of them as off (as if all were on): it says they are unknown."""
    mariadb.create_monitor_user("nopfsread", "pw-nopfsread", grants=False)
    mariadb.execute("GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO 'nopfsread'@'%'")
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="nopfsread", password="pw-nopfsread")
    assert result.info.performance_schema and result.missing == [PFS_SELECT]
    assert ("WEAKENED waits, mutex waits and the purge holder's statement: performance_schema's consumers and wait "
            "instruments, unreadable to this user, may be off: which of them are cannot be listed until it may read "
            "performance_schema") in result.lines()
    assert "  give the monitoring user SELECT ON performance_schema.* (the GRANT above), then test again" in (
        result.lines())
    assert "configuration: everything the figures read is on" not in result.lines()


def test_it_says_the_tps_counter_was_refused_not_off_and_names_the_grant(mariadb):
    """Without PROCESS the server refuses INNODB_METRICS whether InnoDB's trx counters are on or off: Test connection
    said they were "off". The transaction instrument, read and off here (MariaDB's default), leaves both open."""
    mariadb.create_monitor_user("tpsnoprocess", "pw-tpsnoprocess", grants=False)
    mariadb.execute("GRANT BINLOG MONITOR, SLAVE MONITOR ON *.* TO 'tpsnoprocess'@'%'",
                    "GRANT SELECT ON performance_schema.* TO 'tpsnoprocess'@'%'")
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="tpsnoprocess", password="pw-tpsnoprocess")
    assert result.missing == [PROCESS] and result.info.tps_refused == {transactions.INNODB_TRX}
    lines = result.lines()
    assert ("WEAKENED TPS: a counter of every transaction (performance_schema's transaction instrument, InnoDB's "
            "trx_*_commits) off, or refused to the monitoring user, which lacks PROCESS (InnoDB's trx_*_commits): "
            "TPS = (Com_commit + Com_rollback) per second: explicit transactions only, autocommit statements are not "
            "counted on this server") in lines
    fix = lines[lines.index(next(line for line in lines if line.startswith("WEAKENED TPS"))) + 1]
    assert "GRANT PROCESS ON *.* TO the monitoring user" in fix


@pytest.mark.parametrize("info, state", [
    (ServerInfo("mariadb", "10.11.6", (10, 11, 6), True, tps_refused=frozenset({"tps_trx_summary", "tps_innodb"})),
     "refused to the monitoring user, which lacks SELECT on performance_schema (its transaction summary) and "
     "PROCESS (InnoDB's trx_*_commits)"),
    # performance_schema OFF: its transaction summary is off with it, InnoDB's counters were refused.
    (ServerInfo("mariadb", "10.11.6", (10, 11, 6), False, tps_refused=frozenset({"tps_innodb"})),
     "off, or refused to the monitoring user, which lacks PROCESS (InnoDB's trx_*_commits)"),
    # MySQL 5.6 has InnoDB's counters only.
    (ServerInfo("mysql", "5.6.51", (5, 6, 51), True, tps_refused=frozenset({"tps_innodb"})),
     "refused to the monitoring user, which lacks PROCESS (InnoDB's trx_*_commits)"),
    (ServerInfo("mysql", "8.0.36", (8, 0, 36), True, tps_refused=frozenset({"tps_trx_summary"})),
     "off, or refused to the monitoring user, which lacks SELECT on performance_schema (its transaction summary)"),
    (MARIADB_1011, "off"),
])
def test_the_tps_counter_is_said_refused_where_every_counter_the_server_has_was_refused(info, state):
    assert weakened.tps_counter(info).state == state


def test_it_says_access_denied_without_the_password(mariadb):
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="steady", password="wrong-secret")
    assert not result.connected
    assert "access denied for user 'steady'" in result.error
    assert "wrong-secret" not in result.error


def test_it_says_cannot_connect_on_a_wrong_port():
    result = check_connection(host="127.0.0.1", port=free_port(), user="steady", password="x")
    assert not result.connected
    assert "cannot connect" in result.error and "127.0.0.1:" in result.error


def test_it_says_cannot_connect_to_an_unknown_host():
    result = check_connection(host="no-such-host.invalid", port=3306, user="steady", password="x")
    assert not result.connected
    assert "no-such-host.invalid:3306: cannot connect" in result.error


def test_it_connects_over_the_socket(mariadb):
    result = check_connection(socket=mariadb.socket, user="steady", password="s3cret!")
    assert result.ok, result.error
    assert result.address == mariadb.socket


# SHOW GRANTS output recorded from servers that cannot run here.
MYSQL_55_GRANTS = [
    "GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'steady'@'%' IDENTIFIED BY PASSWORD '*ABC'",
    "GRANT SELECT ON `performance_schema`.* TO 'steady'@'%'",
]
MYSQL_80_GRANTS = [
    "GRANT PROCESS, REPLICATION CLIENT ON *.* TO `steady`@`%`",
    "GRANT SELECT ON `performance_schema`.* TO `steady`@`%`",
]
MYSQL_80_ROOT = ["GRANT SELECT, INSERT, PROCESS, REPLICATION CLIENT ON *.* TO `root`@`localhost` WITH GRANT OPTION"]
MARIADB_ALL = ["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` IDENTIFIED VIA unix_socket WITH GRANT OPTION"]
MARIADB_NEW_NAME = ["GRANT PROCESS, BINLOG MONITOR ON *.* TO `steady`@`%`"]


@pytest.mark.parametrize("grants, found", [
    (MYSQL_55_GRANTS, {PROCESS, REPLICATION_CLIENT, PFS_SELECT}),
    (MYSQL_80_GRANTS, {PROCESS, REPLICATION_CLIENT, PFS_SELECT}),
    (MYSQL_80_ROOT, {PROCESS, REPLICATION_CLIENT, PFS_SELECT}),
    (MARIADB_ALL, {PROCESS, REPLICATION_CLIENT, PFS_SELECT}),
    (MARIADB_NEW_NAME, {PROCESS, REPLICATION_CLIENT}),
    (["GRANT USAGE ON *.* TO `steady`@`%`"], set()),
    (["GRANT SELECT ON `shop`.* TO `steady`@`%`"], set()),
])
def test_it_reads_privileges_from_show_grants(grants, found):
    assert privileges_in_grants(grants) == found


def test_it_spells_the_grant_for_each_flavor():
    missing = [PROCESS, REPLICATION_CLIENT, PFS_SELECT]
    assert grant_statement(missing, "'m'@'%'", MYSQL_80) == (
        "GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'm'@'%'; GRANT SELECT ON performance_schema.* TO 'm'@'%';")
    assert grant_statement(missing, "'m'@'%'", MARIADB_103).startswith("GRANT PROCESS, REPLICATION CLIENT ON *.*")
    assert grant_statement(missing, "'m'@'%'", MARIADB_1011).startswith(
        "GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.*")
    # 10.5.2-10.5.8 read replica status with REPLICATION SLAVE ADMIN: BINLOG MONITOR alone would still be refused.
    assert grant_statement([REPLICATION_CLIENT], "'m'@'%'", MARIADB_1054) == (
        "GRANT BINLOG MONITOR, REPLICATION SLAVE ADMIN ON *.* TO 'm'@'%';")
    assert grant_statement([PFS_SELECT], "'m'@'%'", MYSQL_80) == "GRANT SELECT ON performance_schema.* TO 'm'@'%';"
    assert grant_statement([], "'m'@'%'", MYSQL_80) == ""


@pytest.mark.parametrize("info, names", [
    (MYSQL_80, "PROCESS, REPLICATION CLIENT, SELECT ON performance_schema.*"),
    (MARIADB_103, "PROCESS, REPLICATION CLIENT, SELECT ON performance_schema.*"),
    (MARIADB_1054, "PROCESS, BINLOG MONITOR, REPLICATION SLAVE ADMIN, SELECT ON performance_schema.*"),
    (MARIADB_1011, "PROCESS, BINLOG MONITOR, SLAVE MONITOR, SELECT ON performance_schema.*"),
])
def test_it_names_the_privileges_as_the_docs_grant_them_on_each_version(info, names):
    """docs/privileges.md: REPLICATION CLIENT on MySQL and MariaDB before 10.5; BINLOG MONITOR from 10.5.2, with
    what reads replica status there: REPLICATION SLAVE ADMIN on 10.5.2-10.5.8, SLAVE MONITOR from 10.5.9."""
    assert CheckResult("db:3306", info=info).needed_names == names
    assert f"privileges: all present ({names})" in CheckResult("db:3306", info=info).lines()


def test_it_reports_performance_schema_off(mariadb, monitor_credentials):
    mariadb.restart(performance_schema=False)
    try:
        result = check_connection(**monitor_credentials)
    finally:
        mariadb.restart(performance_schema=True)
    assert result.ok, result.error  # the privileges are still there
    assert result.info.performance_schema is False
    assert "performance_schema: OFF" in result.lines()


def test_a_server_without_performance_schema_is_not_asked_for_select_on_it():
    """MySQL 5.1 has no performance_schema: PROCESS and REPLICATION CLIENT are all the collectors can use there."""
    conn = RecordedConnection({
        "SHOW GRANTS": [("GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'steady'@'%'",)],
        "SHOW SLAVE STATUS": [],
        "performance_schema.": pymysql.err.OperationalError(1044, "Access denied to database 'performance_schema'")})
    mysql51 = mysql("5.1.73", performance_schema=False)
    assert missing_privileges(conn, mysql51) == []
    assert CheckResult("db:3306", info=mysql51).needed_names == "PROCESS, REPLICATION CLIENT"
    # 5.5.3 brought it: there it is asked for as before.
    assert missing_privileges(conn, mysql("5.5.62", performance_schema=False)) == [PFS_SELECT]
