"""What a server leaves off, said for its version (the manuals: performance_schema from MySQL 5.5.3 and MariaDB
5.5, statement events from MySQL 5.6 and MariaDB 10.0, InnoDB mutex waits from performance_schema on MariaDB 10.6+
only, SHOW ENGINE INNODB MUTEX everywhere else)."""

import pytest

from collectors import weakened
from collectors.connection import ServerInfo, parse_version
from collectors.tests.recorded import RecordedConnection, mysql


def mariadb(version: str) -> ServerInfo:
    return ServerInfo("mariadb", f"{version}-MariaDB", parse_version(version), False)


@pytest.mark.parametrize("info, figure", [
    (mysql("5.5.62", performance_schema=False), "waits"),
    (mysql("5.7.44", performance_schema=False), "waits and the purge holder's statement"),
    (mysql("8.4.3", performance_schema=False), "waits and the purge holder's statement"),
    (mariadb("10.5.24"), "waits and the purge holder's statement"),
    (mariadb("10.11.6"), "waits, mutex waits and the purge holder's statement"),
])
def test_it_names_only_the_figures_performance_schema_feeds_on_that_version(info, figure):
    [off] = weakened.performance_schema_off(info)
    assert off.figure == figure and off.fix == weakened.PFS_OFF_FIX
    # The mutex chart of MySQL and MariaDB < 10.6 reads SHOW ENGINE INNODB MUTEX: it is not empty.
    assert ("mutex" in off.lost) == ("mutex" in figure)


def test_a_server_older_than_performance_schema_is_not_told_to_turn_it_on():
    """MySQL 5.1 has no performance_schema variable: a performance_schema=ON line would stop it starting."""
    conn = RecordedConnection({})
    found = weakened.read_weakened(conn, mysql("5.1.73", performance_schema=False))
    assert conn.executed == []  # no setup table, no INNODB_METRICS to ask
    pfs = [w for w in found if w.setting == "performance_schema"]
    assert [w.figure for w in pfs] == ["waits"]
    assert "performance_schema=ON" not in pfs[0].fix and "no setting turns it on" in pfs[0].fix
    assert "MySQL 5.1.73 has no performance_schema" in pfs[0].lost

