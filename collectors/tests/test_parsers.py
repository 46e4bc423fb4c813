"""SHOW ENGINE INNODB MUTEX / STATUS parsers against recorded outputs of MySQL 5.1, 5.5, 5.7 and 8.0."""

import pytest

from collectors.delta import compute
from collectors.sources import history_length, innodb_mutex
from collectors.tests.recorded import RecordedConnection, innodb_status, mutex_rows, mysql


def read_mutexes(recorded: str, version: str):
    conn = RecordedConnection({"SHOW ENGINE INNODB MUTEX": mutex_rows(recorded)})
    return innodb_mutex.collect(conn, mysql(version))


def test_it_reads_mysql_51_file_line_names_without_the_build_path():
    reading = read_mutexes("mysql-5.1-mutex.tsv", "5.1.46")
    assert reading.values["mutex.waits:srv/srv0srv.c:906"] == 2911  # the kernel mutex
    assert reading.values["mutex.waits:btr/btr0sea.c:139"] == 3310
    assert len(reading.values) == 6
    assert reading.counters == frozenset(reading.values)


def test_it_reads_the_51_debug_format_with_spins_and_calls():
    reading = read_mutexes("mysql-5.1-debug-mutex.tsv", "5.1.46")
    assert reading.values["mutex.waits:&kernel_mutex:srv/srv0srv.c"] == 301
    assert reading.values["mutex.spins:&kernel_mutex:srv/srv0srv.c"] == 612
    assert reading.values["mutex.calls:&kernel_mutex:srv/srv0srv.c"] == 52345
    assert reading.values["mutex.waits:rw_lock_mutexes"] == 0


def test_it_sums_the_55_rows_that_repeat_a_file_line():
    reading = read_mutexes("mysql-5.5-mutex.tsv", "5.5.4")
    assert reading.values["mutex.waits:buf/buf0buf.c:1196"] == 400
    assert reading.values["mutex.waits:dict/dict0dict.c:1722"] == 8844
    assert reading.values["mutex.waits:srv/srv0srv.c:1010"] == 1003
    assert not any("storage" in name or ".." in name for name in reading.values)


def test_it_reads_57_named_mutexes_and_rwlocks():
    reading = read_mutexes("mysql-5.7-mutex.tsv", "5.7.21")
    assert reading.values["mutex.waits:TRX_SYS"] == 412
    assert reading.values["mutex.spins:TRX_SYS"] == 2031
    assert reading.values["mutex.calls:TRX_SYS"] == 90312
    assert reading.values["mutex.waits:rwlock:dict0dict.cc:1228"] == 109
    assert reading.values["mutex.waits:rwlock:buf0buf.cc:1466"] == 26  # the "sum rwlock" row
    assert reading.note == ""


def test_it_says_how_to_get_80_mutex_rows_when_only_rwlocks_are_listed():
    reading = read_mutexes("mysql-8.0-mutex.tsv", "8.0.36")
    assert reading.values == {"mutex.waits:rwlock:dict0dict.cc:1042": 12, "mutex.waits:rwlock:fil0fil.cc:3416": 7,
                              "mutex.waits:rwlock:hash0hash.cc:171": 2, "mutex.waits:rwlock:buf0buf.cc:787": 341}
    assert "innodb_monitor_enable = 'latch'" in reading.note


@pytest.mark.parametrize(("version", "cut"), [("5.6.13", False), ("5.6.14", True), ("5.7.7", True),
                                              ("5.7.8", False)])
def test_it_says_where_mutex_waits_are_when_show_engine_leaves_them_out(version, cut):
    """5.6.14 to 5.7.7 print little or no SHOW ENGINE INNODB MUTEX (manuals); around them the rows are whole."""
    reading = read_mutexes("mysql-5.7-mutex.tsv", version)
    assert ("wait/synch/%/innodb/%" in reading.note) is cut
    assert reading.values["mutex.waits:TRX_SYS"] == 412  # what is listed is still read


def test_it_reads_80_latch_rows():
    reading = read_mutexes("mysql-8.0-latch-mutex.tsv", "8.0.36")
    assert reading.values["mutex.waits:TRX_SYS_SHARD"] == 1222
    assert reading.values["mutex.calls:LOG_WRITER"] == 60012
    assert reading.note == ""


@pytest.mark.parametrize(("recorded", "length"), [
    ("mysql-5.1-innodb-status.txt", 1009231), ("mysql-5.5-innodb-status.txt", 412377),
    ("mysql-5.7-innodb-status.txt", 2331), ("mysql-8.0-innodb-status.txt", 77),
])
def test_it_finds_the_history_list_length_in_innodb_status(recorded, length):
    assert history_length.parse_innodb_status(innodb_status(recorded)[0][2]) == length


def test_it_reads_55_history_from_innodb_status_only():
    conn = RecordedConnection({"SHOW ENGINE INNODB STATUS": innodb_status("mysql-5.5-innodb-status.txt")})
    reading = history_length.collect(conn, mysql("5.5.4"))
    assert reading.values == {"history_list_length": 412377}
    assert conn.executed == ["SHOW ENGINE INNODB STATUS"]  # 5.5 has no INNODB_METRICS
    assert "SHOW ENGINE INNODB STATUS" in reading.note


def test_it_reads_57_history_from_innodb_metrics_status_column():
    conn = RecordedConnection({"trx_rseg_history_len": [(2331, 1)]})
    reading = history_length.collect(conn, mysql("5.7.21"))
    assert reading.values == {"history_list_length": 2331}
    assert "STATUS = 'enabled'" in conn.executed[0]


def test_it_falls_back_to_innodb_status_when_the_80_counter_is_disabled():
    conn = RecordedConnection({"trx_rseg_history_len": [(0, 0)],
                               "SHOW ENGINE INNODB STATUS": innodb_status("mysql-8.0-innodb-status.txt")})
    reading = history_length.collect(conn, mysql("8.0.36"))
    assert reading.values == {"history_list_length": 77}
    assert "SET GLOBAL innodb_monitor_enable = 'trx_rseg_history_len'" in reading.note


def test_it_names_latches_the_same_whatever_the_prefix():
    assert innodb_mutex.latch_name("sum rwlock: buf0buf.cc:1466") == "rwlock:buf0buf.cc:1466"
    assert innodb_mutex.latch_name("combined buf0buf.cc:1120") == "buf0buf.cc:1120"
    assert innodb_mutex.latch_name("/pb2/mysql-5.5.8/storage/innobase/srv/srv0srv.c:1018") == "srv/srv0srv.c:1018"
    assert innodb_mutex.latch_name("../../../storage/innodb_plugin/log/log0log.c:775") == "log/log0log.c:775"


def test_a_latch_listed_for_the_first_time_is_a_baseline_not_a_spike():
    """MySQL 8.0 lists TRX_SYS_SHARD once it has waited; its calls counted since boot."""
    rows = mutex_rows("mysql-8.0-latch-mutex.tsv")
    without = [row for row in rows if row[1] != "TRX_SYS_SHARD"]
    later = [(t, n, "spins=20,waits=5,calls=60512") if n == "LOG_WRITER" else (t, n, s) for t, n, s in rows]
    conn = RecordedConnection({"SHOW ENGINE INNODB MUTEX": without})
    _, snapshot = compute(None, innodb_mutex.collect(conn, mysql("8.0.36")), 100.0, 0.0)
    conn.answers["SHOW ENGINE INNODB MUTEX"] = later
    change, _ = compute(snapshot, innodb_mutex.collect(conn, mysql("8.0.36")), 160.0, 0.0)
    assert not any("TRX_SYS_SHARD" in name for name in change.values)  # 1,502,312 calls since boot: not 25 k/s
    assert change.values["mutex.calls:LOG_WRITER"] == 60512 - 60012
    assert change.values["mutex.waits:LOG_WRITER"] == 5 - 3 and change.interval == 60.0
