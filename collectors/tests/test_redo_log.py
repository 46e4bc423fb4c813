"""The redo_log source on recorded MySQL 5.1/5.5/5.7/8.0 outputs; MariaDB reads the same from status."""

from collectors.connection import ServerInfo
from collectors.source import Reading
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
    reading = redo_log.collect(conn, mysql("8.0.29"))  # the last 8.0 without the LSNs as status
    assert reading.values["redo.checkpoint_age_bytes"] == 2207465830 - 2141357260
    assert "module_log" in reading.note


def test_it_joins_the_two_words_of_a_51_lsn():
    text = "LOG\n---\nLog sequence number 3 1048576\nLog flushed up to   3 1048576\nLast checkpoint at  3 524288\n"
    assert redo_log.parse_innodb_status(text) == ((3 << 32) + 1048576, (3 << 32) + 524288)


def test_mariadb_is_left_to_its_status_variables():
    assert "not available on" in redo_log.SOURCE.unsupported_reason(ServerInfo("mariadb", "10.11.6", (10, 11, 6), True))


# MySQL 8.0.30+ status: the same LSNs as the recorded 8.0 monitor text's "Log sequence number" and "Last checkpoint at".
LSNS_80 = [("Innodb_redo_log_checkpoint_lsn", "2141357260"), ("Innodb_redo_log_current_lsn", "2207465830")]


def test_80_30_takes_the_lsns_from_the_polls_global_status_without_a_statement():
    """8.0.30 made both LSNs status variables, on by default: the poll's global status already holds them."""
    status = Reading({"Uptime": 600, "Innodb_redo_log_flushed_to_disk_lsn": 2207465000,
                      **{name: int(text) for name, text in LSNS_80}})
    reading = redo_log.derive({"global_status": status}, mysql("8.0.36"))
    assert reading is not None and not reading.note  # no module_log hint: nothing to turn on
    assert reading.values == {"redo.checkpoint_age_bytes": 2207465830 - 2141357260, "redo.lsn": 2207465830}
    assert reading.counters == {"redo.lsn"}
    # Free there, so every poll (a checkpoint's sawtooth is seconds long); before 8.0.30 once a minute.
    assert redo_log.SOURCE.interval_for(10, "mysql", (8, 0, 36)) == 10
    assert redo_log.SOURCE.interval_for(10, "mysql", (8, 0, 29)) == 60


def test_80_30_without_this_polls_status_reads_the_two_status_rows_not_the_monitor():
    conn = RecordedConnection({"Innodb_redo_log_current_lsn": LSNS_80})
    reading = redo_log.collect(conn, mysql("8.4.3"))
    assert len(conn.executed) == 1 and "INNODB STATUS" not in conn.executed[0]
    assert reading.values["redo.checkpoint_age_bytes"] == 66_108_570


def test_before_80_30_the_status_is_not_taken_even_where_a_reading_has_it():
    assert redo_log.derive({"global_status": Reading(dict(LSNS_80))}, mysql("8.0.29")) is None
