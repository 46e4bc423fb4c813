"""The replication source on recorded MySQL 5.5, 5.7 and 8.0 result sets (names differ by version)."""

import pymysql
import pytest

from collectors.connection import ServerInfo, parse_version
from collectors.source import SourceUnavailable
from collectors.sources import replication
from collectors.tests.recorded import RecordedConnection, mysql, table


def test_it_reads_each_80_channel_by_its_8022_names():
    conn = RecordedConnection({"SHOW REPLICA STATUS": table("mysql-8.0-replica-status.tsv")})
    reading = replication.collect(conn, mysql("8.0.36"))
    assert reading.values == {"replica.io_running:orders": 1, "replica.sql_running:orders": 1,
                              "replica.lag_s:orders": 42,
                              "replica.io_running:audit": 0, "replica.sql_running:audit": 1}
    assert "channel 'audit': I/O thread Connecting" in reading.note and "Can't connect" in reading.note


def test_it_reads_57_slave_status_with_a_stopped_sql_thread():
    conn = RecordedConnection({"SHOW SLAVE STATUS": table("mysql-5.7-slave-status.tsv")})
    reading = replication.collect(conn, mysql("5.7.44"))
    assert conn.executed == ["SHOW SLAVE STATUS"]
    assert reading.values == {"replica.io_running": 1, "replica.sql_running": 0}
    assert "SQL thread No" in reading.note and "Duplicate entry '7'" in reading.note


def test_it_reads_55_which_has_no_channel_column():
    conn = RecordedConnection({"SHOW SLAVE STATUS": table("mysql-5.5-slave-status.tsv")})
    reading = replication.collect(conn, mysql("5.5.62"))
    assert reading.values == {"replica.io_running": 1, "replica.sql_running": 1, "replica.lag_s": 7}


@pytest.mark.parametrize("flavor, version, sql", [
    ("mysql", "8.0.21", "SHOW SLAVE STATUS"), ("mysql", "8.0.22", "SHOW REPLICA STATUS"),
    ("mariadb", "10.11.6", "SHOW ALL SLAVES STATUS"),
])
def test_it_asks_each_version_in_its_own_words(flavor, version, sql):
    assert replication.statement(ServerInfo(flavor, version, parse_version(version), True)) == sql


def test_it_names_the_privilege_each_version_needs():
    assert replication.privilege(ServerInfo("mariadb", "10.11.6", (10, 11, 6), True)) == "SLAVE MONITOR"
    assert replication.privilege(ServerInfo("mariadb", "10.4.30", (10, 4, 30), True)) == "REPLICATION CLIENT"
    assert replication.privilege(mysql("8.0.36")) == "REPLICATION CLIENT"


@pytest.mark.parametrize("version, needed", [
    ("10.5.1", "REPLICATION CLIENT"), ("10.5.2", "REPLICATION SLAVE ADMIN"), ("10.5.8", "REPLICATION SLAVE ADMIN"),
    ("10.5.9", "SLAVE MONITOR"),
])
def test_mariadb_105_before_1059_is_told_to_grant_replication_slave_admin(version, needed):
    """MariaDB's sql/privilege.h: SHOW SLAVE STATUS took REPLICATION SLAVE ADMIN (or SUPER) from 10.5.2 until
    SLAVE MONITOR came (10.5.9, as MaxScale's monitor grants say); BINLOG MONITOR alone is refused with 1227."""
    denied = pymysql.err.OperationalError(
        1227, "Access denied; you need (at least one of) the SUPER, REPLICATION SLAVE ADMIN privilege(s)")
    conn = RecordedConnection({"SHOW ALL SLAVES STATUS": denied})
    with pytest.raises(SourceUnavailable) as raised:
        replication.collect(conn, ServerInfo("mariadb", f"{version}-MariaDB", parse_version(version), True))
    assert f"SHOW ALL SLAVES STATUS needs {needed}," in str(raised.value)
    assert f"GRANT {needed} ON *.* TO the monitoring user" in str(raised.value)
