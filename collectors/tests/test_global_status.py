"""global_status: counters and gauges told apart, tps/qps derived, MySQL 8.0's transaction summary."""

from collectors import transactions
from collectors.connection import ServerInfo
from collectors.delta import compute
from collectors.sources import global_status
from collectors.tests.recorded import RecordedConnection, mysql

MYSQL_80_STATUS = [
    ("Com_commit", "120"), ("Com_rollback", "3"), ("Questions", "9001"), ("Threads_running", "4"),
    ("Threads_connected", "33"), ("Innodb_buffer_pool_pages_dirty", "812"),
    ("Innodb_buffer_pool_pages_flushed", "4410"),
    ("Open_tables", "400"), ("Opened_tables", "512"), ("Innodb_rows_read", "1234567"), ("Uptime", "86400"),
    ("Ssl_cipher", ""), ("Innodb_buffer_pool_load_status", "Buffer pool(s) load completed at 240514  8:00:01"),
]


def test_it_tells_counters_from_gauges():
    for gauge in ("Threads_running", "Threads_connected", "Innodb_buffer_pool_pages_data",
                  "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free", "Innodb_history_list_length",
                  "Open_tables", "Innodb_data_pending_reads", "Max_used_connections", "Uptime", "Memory_used"):
        assert global_status.is_gauge(gauge), gauge
    for counter in ("Com_commit", "Questions", "Innodb_buffer_pool_pages_flushed", "Opened_tables",
                    "Innodb_rows_read", "Threads_created", "Innodb_data_reads", "Handler_write", "wsrep_received"):
        assert not global_status.is_gauge(counter), counter


def joined(rows: list[tuple]) -> list[tuple]:
    """rows as the server answers a joined_sql() statement: their count and one text."""
    return [(len(rows), "\n".join("\t".join(row) for row in rows))]


def capitals(rows: list[tuple]) -> list[tuple]:
    return [(name.upper(), value) for name, value in rows]


def test_it_reads_mysql_80_with_the_transaction_summary(monkeypatch):
    monkeypatch.setattr(global_status, "SPELLING", {})
    summary = [(70412, "YES")]
    conn = RecordedConnection({"FROM performance_schema.global_status": joined(MYSQL_80_STATUS),
                               "SHOW GLOBAL STATUS": MYSQL_80_STATUS,
                               "events_transactions_summary_global_by_event_name": summary})
    server = mysql("8.0.36", tps_basis=transactions.TRX_SUMMARY)
    reading = global_status.collect(conn, server)
    assert reading.values["tps_explicit"] == 123 and reading.values["qps"] == 9001
    assert reading.values["tps_trx_summary"] == 70412
    assert {"tps_explicit", "qps", "tps_trx_summary", "Com_commit", "Opened_tables"} <= reading.counters
    assert not {"Threads_running", "Open_tables", "Uptime"} & reading.counters
    assert "Ssl_cipher" not in reading.values  # text values are not metrics
    assert reading.note.startswith("TPS = transactions per second from performance_schema")
    # 500 transactions later, 20 of them explicit: tps is the summary's delta, tps_explicit its own.
    summary[0] = (70912, "YES")
    later = [(n, str(int(v) + 20)) if n == "Com_commit" else (n, v) for n, v in MYSQL_80_STATUS]
    conn.answers["FROM performance_schema.global_status"] = joined(later)
    change, _ = compute(compute(None, reading, 100.0, 0.0)[1], global_status.collect(conn, server), 110.0, 0.0)
    assert change.values["tps"] == 500 and change.values["tps_explicit"] == 20
    assert {"tps", "tps_explicit", "tps_trx_summary"} <= change.counters


def test_a_disabled_transaction_instrument_falls_back_to_explicit_commits(monkeypatch):
    monkeypatch.setattr(global_status, "SPELLING", {})
    conn = RecordedConnection({"FROM performance_schema.global_status": joined(MYSQL_80_STATUS),
                               "SHOW GLOBAL STATUS": MYSQL_80_STATUS,
                               "events_transactions_summary_global_by_event_name": [(70412, "NO")]})
    reading = global_status.collect(conn, mysql("8.0.36", tps_basis=transactions.TRX_SUMMARY))
    assert "tps_trx_summary" not in reading.values  # a count standing still is not zero TPS
    assert reading.note.startswith("TPS = (Com_commit + Com_rollback)") and "transaction=ON" in reading.note


def test_names_in_capitals_keep_the_show_spelling_and_show_is_asked_once(monkeypatch):
    monkeypatch.setattr(global_status, "SPELLING", {})
    conn = RecordedConnection({"FROM information_schema.GLOBAL_STATUS": joined(capitals(MYSQL_80_STATUS)),
                               "SHOW GLOBAL STATUS": MYSQL_80_STATUS})
    first = global_status.collect(conn, mysql("5.6.51"))
    second = global_status.collect(conn, mysql("5.6.51"))
    assert first.values == second.values and second.values["Com_commit"] == 120
    assert "Innodb_buffer_pool_pages_dirty" in second.values and "COM_COMMIT" not in second.values
    assert [sql.split()[0] for sql in conn.executed] == ["SELECT", "SHOW", "SELECT"]


def test_a_joined_text_that_does_not_add_up_is_read_again_row_by_row(monkeypatch):
    monkeypatch.setattr(global_status, "SPELLING", {"COM_COMMIT": "Com_commit"})
    cut_short = [(len(MYSQL_80_STATUS), joined(MYSQL_80_STATUS[:3])[0][1])]  # group_concat_max_len reached
    conn = RecordedConnection({"FROM information_schema.GLOBAL_STATUS": cut_short,
                               "SHOW GLOBAL STATUS": MYSQL_80_STATUS})
    reading = global_status.collect(conn, mysql("5.6.51"))
    assert reading.values["Opened_tables"] == 512 and reading.values["Uptime"] == 86400


def test_it_does_not_ask_a_server_without_the_instrument_for_the_summary():
    conn = RecordedConnection({"FROM performance_schema.global_status": joined(MYSQL_80_STATUS),
                               "SHOW GLOBAL STATUS": MYSQL_80_STATUS})
    reading = global_status.collect(conn, mysql("5.7.21"))
    assert "tps_trx_summary" not in reading.values and reading.values["tps_explicit"] == 123
    assert not any("events_transactions" in sql for sql in conn.executed)


def test_mysql_57_without_performance_schema_reads_show_global_status():
    conn = RecordedConnection({"SHOW GLOBAL STATUS": MYSQL_80_STATUS})
    reading = global_status.collect(conn, mysql("5.7.21", performance_schema=False))
    assert reading.values["tps_explicit"] == 123 and len(conn.executed) == 1


def test_polls_of_the_same_names_share_one_counters_set_with_the_derived_counters(monkeypatch):
    for name in ("Uptime", "Questions", "Busy_time", "Threads_connected", "Com_commit"):
        monkeypatch.setitem(global_status.SPELLING, name.upper(), name)
    info = ServerInfo("mariadb", "10.11.6", (10, 11, 6), True, transactions.EXPLICIT)

    def texts(questions: int) -> tuple[str, str]:
        return (f"4\nUPTIME\t100\nQUESTIONS\t{questions}\nBUSY_TIME\t1.5\nTHREADS_CONNECTED\t2", "1\nCOM_COMMIT\t5")

    first, second = (global_status.from_shared(texts(q), None, info) for q in (40, 47))
    # Busy_time: a decimal counter; qps and tps_explicit: derived; Uptime and Threads_connected: gauges
    assert first.counters == {"Questions", "Busy_time", "Com_commit", "qps", "tps_explicit"}
    assert second.counters is first.counters and second.values["qps"] == 47


def test_a_word_that_turns_into_a_number_is_read_and_the_decimals_are_floats(monkeypatch):
    for name in ("Uptime", "Busy_time", "Rpl_status", "Com_commit"):
        monkeypatch.setitem(global_status.SPELLING, name.upper(), name)
    info = ServerInfo("mariadb", "10.11.6", (10, 11, 6), True, transactions.EXPLICIT)

    def read(busy: str, rpl: str) -> dict:
        texts = (f"3\nUPTIME\t100\nBUSY_TIME\t{busy}\nRPL_STATUS\t{rpl}", "1\nCOM_COMMIT\t5")
        found = global_status.from_shared(texts, None, info)
        assert found is not None
        return dict(found.values)

    assert read("1.500000", "AUTH_MASTER") == {"Uptime": 100, "Busy_time": 1.5, "Com_commit": 5, "tps_explicit": 5,
                                              "qps": 0}
    assert read("2.250000", "AUTH_MASTER")["Busy_time"] == 2.25
    assert read("3.000000", "7")["Rpl_status"] == 7  # the word the plan knew is a number now: read as one


def test_an_integer_that_turns_into_a_decimal_is_read_by_a_new_plan(monkeypatch):
    for name in ("Uptime", "Busy_time", "Com_commit"):
        monkeypatch.setitem(global_status.SPELLING, name.upper(), name)
    monkeypatch.setattr(global_status, "PLANS", {})
    monkeypatch.setattr(global_status, "LAST_PLAN", ((), None))

    def planned(busy: str):
        return global_status.planned_values((f"2\nUPTIME\t100\nBUSY_TIME\t{busy}", "1\nCOM_COMMIT\t5"))

    assert planned("3")[0] == {"Uptime": 100, "Busy_time": 3, "Com_commit": 5}
    assert planned("3.500000") is None  # the plan had it an integer: the caller reads the rows, and it is forgotten
    assert planned("3.500000")[0] == {"Uptime": 100, "Busy_time": 3.5, "Com_commit": 5}
    assert planned("4.000000")[0]["Busy_time"] == 4.0
