"""What a server leaves off, said for its version (the manuals: performance_schema from MySQL 5.5.3 and MariaDB
5.5, statement events from MySQL 5.6 and MariaDB 10.0, InnoDB mutex waits from performance_schema on MariaDB 10.6+
only, SHOW ENGINE INNODB MUTEX everywhere else; the performance-schema-instrument option from MySQL 5.6.4 and
MariaDB 10.0)."""

import pytest

from collectors import weakened
from collectors.connection import ServerInfo, parse_version
from collectors.source import SourceUnavailable, require_performance_schema
from collectors.sources import pfs_waits
from collectors.tests.recorded import RecordedConnection, mysql


def mariadb(version: str) -> ServerInfo:
    return ServerInfo("mariadb", f"{version}-MariaDB", parse_version(version), False)


# performance_schema is read only at startup, from the option file's group of the server's flavor.
ON_MYSQL = "set performance_schema=ON under [mysqld] in the server's option file and restart it"
ON_MARIADB = "set performance_schema=ON under [mariadb] in the server's option file and restart it"


@pytest.mark.parametrize("info, figure, fix", [
    (mysql("5.5.62", performance_schema=False), "waits", ON_MYSQL),
    (mysql("5.7.44", performance_schema=False), "waits and the purge holder's statement", ON_MYSQL),
    (mysql("8.4.3", performance_schema=False), "waits and the purge holder's statement", ON_MYSQL),
    (mariadb("10.5.24"), "waits and the purge holder's statement", ON_MARIADB),
    (mariadb("10.11.6"), "waits, mutex waits and the purge holder's statement", ON_MARIADB),
])
def test_it_names_only_the_figures_performance_schema_feeds_on_that_version(info, figure, fix):
    [off] = weakened.performance_schema_off(info)
    assert off.figure == figure and off.fix == fix
    with pytest.raises(SourceUnavailable) as raised:
        require_performance_schema(info, "pfs_waits")
    assert str(raised.value) == f"performance_schema is OFF on this server, so pfs_waits has nothing to read; {fix}"
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


def waits_answers() -> dict:
    """A MySQL 5.5/5.6 server with every wait/synch instrument off (55 of 55) and the wait/io ones on (21 of 21)."""
    return {"events_waits_summary_global_by_event_name": [(1, "wait/io/file/innodb/innodb_data_file\t10\t5000")],
            "setup_consumers": [("76,55,55", "global_instrumentation=YES")],
            "GROUP BY family": [("wait/synch", "0", "55"), ("wait/io", "21", "21")]}


def test_mysql_55_is_not_given_a_configuration_line_it_has_no_option_for():
    """performance-schema-instrument came with MySQL 5.6.4: in a 5.5 option file it would stop the server starting."""
    note = pfs_waits.collect(RecordedConnection(waits_answers()), mysql("5.5.62")).note
    assert "55 of 55 wait/synch/% instruments (enabled and timed)" in note and "wait/io/%" not in note
    assert "WHERE NAME LIKE 'wait/synch/%' (again after each restart: MySQL 5.5.62 has no option" in note
    assert "performance-schema-instrument" not in note


def test_mysql_56_keeps_the_configuration_line():
    note = pfs_waits.collect(RecordedConnection(waits_answers()), mysql("5.6.51")).note
    assert "(and add performance-schema-instrument='wait/synch/%=ON' to the server configuration)" in note


@pytest.mark.parametrize("info, family, figure", [
    (mysql("8.0.36"), "wait/synch", "waits"),  # its mutex chart reads SHOW ENGINE INNODB MUTEX
    (mariadb("10.5.24"), "wait/synch", "waits"),
    (mariadb("10.11.6"), "wait/synch", "waits and mutex waits"),  # its mutex chart reads wait/synch/%/innodb/%
    (mariadb("10.11.6"), "wait/io", "waits"),
])
def test_instruments_off_weaken_the_mutex_chart_only_where_it_reads_them(info, family, figure):
    assert weakened.family_off(family, 3, 58, info).figure == figure
