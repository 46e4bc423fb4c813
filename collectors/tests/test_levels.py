"""Levels and running totals told apart, family by family, as the manuals describe each variable.

The lists below are written from the MySQL 5.1-8.4 and MariaDB 10.x-11.x manuals
(server status variables, InnoDB, replication, X plugin, Aria, MyISAM key cache), not
from the collector's table; a decrease of a level must never cost another counter its delta.
"""

import pytest

from collectors.delta import compute
from collectors.sources import global_status, innodb_metrics
from collectors.tests.recorded import RecordedConnection, mysql

FAMILIES = {
    "connections and threads": (
        ["Threads_running", "Threads_connected", "Threads_cached", "Max_used_connections", "Prepared_stmt_count",
         "Global_connection_memory", "Memory_used", "Memory_used_initial", "Threadpool_threads",
         "Threadpool_idle_threads", "Open_tables", "Open_files", "Table_open_cache_active_instances"],
        ["Threads_created", "Connections", "Aborted_clients", "Opened_tables", "Max_statement_time_exceeded",
         "Table_open_cache_misses"]),
    "InnoDB redo log (MySQL 8.0.30+) and checkpoints": (
        ["Innodb_redo_log_logical_size", "Innodb_redo_log_physical_size", "Innodb_redo_log_capacity_resized",
         "Innodb_checkpoint_age", "Innodb_lsn_current"],
        ["Innodb_os_log_written", "Innodb_log_writes", "Innodb_log_waits", "Innodb_redo_log_flushed_to_disk_lsn"]),
    "InnoDB buffer pool and rows": (
        ["Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_bytes_data",
         "Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_resize_status_code", "Innodb_row_lock_current_waits",
         "Innodb_history_list_length", "Innodb_data_pending_reads", "Innodb_async_reads_tasks_running"],
        ["Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_read_requests", "Innodb_rows_read",
         "Innodb_row_lock_waits", "Innodb_deadlocks", "Innodb_async_reads_total_count"]),
    "transactions and GTIDs": (
        ["Ongoing_anonymous_transaction_count", "Ongoing_anonymous_gtid_violating_transaction_count",
         "Ongoing_automatic_gtid_violating_transaction_count"],
        ["Handler_commit", "Handler_rollback", "Com_commit", "Transactions_multi_engine", "Binlog_commits"]),
    "replication and semi-sync": (
        ["Slaves_connected", "Replicas_connected", "Slaves_running", "Slave_open_temp_tables",
         "Rpl_semi_sync_master_clients", "Rpl_semi_sync_source_clients", "Rpl_semi_sync_master_wait_sessions",
         "Rpl_semi_sync_source_wait_sessions", "Rpl_semi_sync_master_avg_wait_time",
         "Rpl_semi_sync_master_net_avg_wait_time", "Rpl_semi_sync_master_tx_avg_wait_time",
         "Slave_heartbeat_period", "Binlog_snapshot_position"],
        ["Rpl_semi_sync_master_yes_tx", "Rpl_semi_sync_master_no_tx", "Rpl_semi_sync_master_net_waits",
         "Rpl_semi_sync_master_tx_wait_time", "Slave_received_heartbeats", "Slave_retried_transactions",
         "Binlog_bytes_written"]),
    "X plugin": (
        ["Mysqlx_worker_threads", "Mysqlx_worker_threads_active", "Mysqlx_sessions", "Mysqlx_connections_active"],
        ["Mysqlx_connections_accepted", "Mysqlx_sessions_closed", "Mysqlx_bytes_received", "Mysqlx_stmt_execute_sql"]),
    "MyISAM key cache, Aria page cache, query cache, TC log": (
        ["Key_blocks_used", "Key_blocks_unused", "Key_blocks_not_flushed", "Key_blocks_warm",
         "Aria_pagecache_blocks_used", "Aria_pagecache_blocks_unused", "Aria_pagecache_blocks_not_flushed",
         "Qcache_free_memory", "Qcache_queries_in_cache", "Tc_log_max_pages_used", "Tc_log_page_size"],
        ["Key_reads", "Key_read_requests", "Aria_pagecache_reads", "Aria_transaction_log_syncs", "Qcache_hits",
         "Qcache_inserts", "Tc_log_page_waits"]),
    "temporary space and the error log": (
        ["Tmp_space_used", "Max_tmp_space_used", "Error_log_buffered_bytes", "Error_log_buffered_events"],
        ["Created_tmp_disk_tables", "Created_tmp_files", "Error_log_expired_events"]),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_it_reads_each_family_as_the_manuals_describe_it(family):
    levels, totals = FAMILIES[family]
    assert [name for name in levels if not global_status.is_gauge(name)] == []
    assert [name for name in totals if global_status.is_gauge(name)] == []


def status_reading(conn: RecordedConnection, rows: list[tuple]):
    conn.answers["SHOW GLOBAL STATUS"] = rows
    return global_status.collect(conn, mysql("8.0.36", performance_schema=False))


def test_a_shrinking_redo_log_is_a_level_and_costs_no_other_delta(monkeypatch):
    """MySQL 8.0.30+: the redo log's logical size falls after each checkpoint under write load."""
    monkeypatch.setattr(global_status, "SPELLING", {})
    conn = RecordedConnection({})
    first = [("Com_commit", "1000"), ("Innodb_redo_log_logical_size", "52428800"), ("Handler_write", "7000"),
             ("Uptime", "600"), ("Uptime_since_flush_status", "600")]
    after = [("Com_commit", "1450"), ("Innodb_redo_log_logical_size", "1048576"), ("Handler_write", "7900"),
             ("Uptime", "610"), ("Uptime_since_flush_status", "610")]
    _, snapshot = compute(None, status_reading(conn, first), 100.0, 0.0)
    change, _ = compute(snapshot, status_reading(conn, after), 110.0, 0.0)
    assert change.interval == 10.0 and change.reset == ""
    assert change.values["tps"] == 450 and change.values["Handler_write"] == 900
    assert change.values["Innodb_redo_log_logical_size"] == 1048576  # stored as read
    assert "Innodb_redo_log_logical_size" not in change.counters


def test_a_counter_reset_alone_drops_its_delta_but_flush_status_resets_the_reading(monkeypatch):
    monkeypatch.setattr(global_status, "SPELLING", {})
    conn = RecordedConnection({})
    base = {"Com_commit": 1000, "Handler_write": 7000, "Uptime": 600, "Uptime_since_flush_status": 600}

    def reading(**changes):
        return status_reading(conn, [(k, str(v)) for k, v in {**base, **changes}.items()])
    _, snapshot = compute(None, reading(), 100.0, 0.0)
    # Handler_write went down with nothing else (a plugin's reset, a misread level): only it is left out.
    change, snapshot = compute(snapshot, reading(Com_commit=1010, Handler_write=5, Uptime=610,
                                                 Uptime_since_flush_status=610), 110.0, 0.0)
    assert change.values["tps"] == 10 and "Handler_write" not in change.values
    assert "Handler_write (7000 -> 5)" in change.dropped
    # FLUSH STATUS: Uptime_since_flush_status went back: every counter starts again, nothing is a delta.
    change, _ = compute(snapshot, reading(Com_commit=3, Handler_write=9, Uptime=620,
                                          Uptime_since_flush_status=2), 120.0, 0.0)
    assert change.interval is None and change.counters == frozenset() and "FLUSH STATUS" in change.reset


# INNODB_METRICS rows whose TYPE is not what they are, per the counters' descriptions in the manuals.
LEVELS_DESPITE_TYPE = ["os_pending_reads", "os_pending_writes", "ibuf_size"]
TOTALS_DESPITE_TYPE = ["lock_deadlocks", "lock_timeouts"]


def test_innodb_metrics_rows_of_a_live_server_are_classified_by_name_where_type_misleads(server, mariadb):
    from collectors.batch import poll_server

    rows = dict(mariadb.execute("SELECT NAME, TYPE FROM information_schema.INNODB_METRICS WHERE ENABLED"))
    assert rows["os_pending_reads"] == "counter" and rows["ibuf_size"] == "status_counter"  # what the TYPE says
    assert rows["lock_deadlocks"] == "value"
    poll_server(server.id, only=["innodb_metrics"])
    outcome = poll_server(server.id, only=["innodb_metrics"]).sources[0]
    assert outcome.ok, outcome.error
    counters = outcome.sample.counters
    assert [n for n in LEVELS_DESPITE_TYPE if f"innodb_metrics:{n}" in counters] == []
    assert [n for n in TOTALS_DESPITE_TYPE if f"innodb_metrics:{n}" not in counters] == []
    assert "innodb_metrics:buffer_pool_reads" in counters  # a plain status_counter stays a total
    assert "innodb_metrics:trx_rseg_history_len" not in counters  # a plain value stays a level


def test_innodb_metrics_levels_enabled_on_demand_are_levels_too():
    """MySQL 8.0 rows once innodb_monitor_enable='lock%', 'ddl%', 'trx%' (TYPE counter, yet current numbers)."""
    rows = [("lock_rec_locks", "counter", "12", "1"), ("lock_table_locks", "counter", "3", "1"),
            ("ddl_pending_alter_table", "counter", "1", "1"), ("trx_active_transactions", "counter", "7", "1"),
            ("lock_deadlocks", "value", "4", "1"), ("trx_rw_commits", "counter", "99", "1")]
    text = "\n".join("\t".join(row) for row in rows)
    conn = RecordedConnection({"INNODB_METRICS": [(len(rows), text)]})
    reading = innodb_metrics.collect(conn, mysql("8.0.36"))
    assert reading.counters == {"innodb_metrics:lock_deadlocks", "innodb_metrics:trx_rw_commits"}
    assert reading.values["innodb_metrics:lock_rec_locks"] == 12
