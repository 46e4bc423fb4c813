"""The redo_log source on recorded MySQL 5.1/5.5/5.7/8.0 outputs; MariaDB reads the same from status."""

from collectors.connection import ServerInfo
from collectors.sources import redo_log
from collectors.tests.recorded import RecordedConnection, innodb_status, mysql


def test_it_reads_55_from_innodb_status():
    conn = RecordedConnection({"SHOW ENGINE INNODB STATUS": innodb_status("mysql-5.5-innodb-status.txt")})
    reading = redo_log.collect(conn, mysql("5.5.62"))
    assert conn.executed == ["SHOW ENGINE INNODB STATUS"]  # 5.5 has no INNODB_METRICS
    assert reading.values == {"redo.checkpoint_age_bytes": 94283812002 - 94001230112, "redo.lsn": 94283812002}
    assert reading.counters == {"redo.lsn"}


def test_it_reads_57_from_the_log_counters_when_they_are_on():
    conn = RecordedConnection({"INNODB_METRICS": [("log_lsn_current", "7340032000"),
                                                  ("log_lsn_last_checkpoint", "7339000000")]})
    reading = redo_log.collect(conn, mysql("5.7.44"))
    assert reading.values["redo.checkpoint_age_bytes"] == 1_032_000 and not reading.note


def test_it_falls_back_to_80_innodb_status_and_says_how_to_avoid_it():
    conn = RecordedConnection({"INNODB_METRICS": [], "SHOW ENGINE INNODB STATUS":
                               innodb_status("mysql-8.0-innodb-status.txt")})
    reading = redo_log.collect(conn, mysql("8.0.36"))
    assert reading.values["redo.checkpoint_age_bytes"] == 2207465830 - 2141357260
    assert "module_log" in reading.note


def test_it_joins_the_two_words_of_a_51_lsn():
    text = "LOG\n---\nLog sequence number 3 1048576\nLog flushed up to   3 1048576\nLast checkpoint at  3 524288\n"
    assert redo_log.parse_innodb_status(text) == ((3 << 32) + 1048576, (3 << 32) + 524288)


def test_mariadb_is_left_to_its_status_variables():
    assert "not available on" in redo_log.SOURCE.unsupported_reason(ServerInfo("mariadb", "10.11.6", (10, 11, 6), True))
