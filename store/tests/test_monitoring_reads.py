"""Monitoring reads told from the rest by their digest text: this monitor's own polls as MariaDB 11 stored them,
other monitors' reads, and application statements that only mention a system schema."""

import pytest

from store.monitoring_reads import is_monitoring_read

# DIGEST_TEXTs our poll left in the suite's MariaDB's digest table (SCHEMA_NAME NULL: the poll names no database).
# The first is the poll's shared statement, cut by the server at performance_schema_max_digest_length.
OUR_POLL = (
    "SELECT ( SELECT `CONCAT_WS` ( ? , COUNT ( * ) , GROUP_CONCAT ( `VARIABLE_NAME` , ? , `VARIABLE_VALUE` SEPARATOR"
    " ? ) ) FROM `performance_schema` . `global_status` WHERE `VARIABLE_NAME` NOT IN (...) ) , ( SELECT `CONCAT_WS`"
    " ( ? , COUNT ( * ) , GROUP_CONCAT ( `VARIABLE_NAME` , ? , `VARIABLE_VALUE` SEPARATOR ? ) ) FROM"
    " `information_schema` . `GLOBAL_STATUS` WHERE `VARIABLE_NAME` IN (...) ) , ( SELECT `CONCAT_WS` ( ? , `LEAST` ("
    " COUNT ( * ) , ? ) , GROUP_CONCAT ( `trx_mysql_thread_id` , ? , TIMESTAMPDIFF ( SQL_TSI_SECOND , `trx_started`"
    " , NOW ( ) ) , ? , `IFNULL` ( REPLACE ( REPLACE ( LEFT ( `trx_query` , ? ) , ?, ... ) , ?, ... ) , ? ) ORDER"
    " BY `trx_started` , `trx_mysql_thread_id` SEPARATOR '",
    "SHOW GLOBAL STATUS WHERE `VARIABLE_NAME` NOT RLIKE ? OR `VARIABLE_NAME` IN (...) ",
    "SHOW GLOBAL STATUS LIKE ? ",
    "SHOW ALL SLAVES STATUS ",
    "SET STATEMENT MAX_STATEMENT_TIME = ? FOR SELECT SCHEMA_NAME , `DIGEST` , `COUNT_STAR` , `SUM_TIMER_WAIT` FROM"
    " `performance_schema` . `events_statements_summary_by_digest` ",
    "SELECT `c` . `gi` , `c` . `sd` , `i` . `timed` , `i` . `total` FROM ( SELECT MAX ( IF ( NAME = ? , `ENABLED` , ?"
    " ) ) AS `gi` FROM `performance_schema` . `setup_consumers` ) `c` , ( SELECT SUM ( `ENABLED` = ? AND `TIMED` = ?"
    " ) AS `timed` , COUNT ( * ) AS `total` FROM `performance_schema` . `setup_instruments` WHERE NAME LIKE ? ) `i` ",
    "SELECT COUNT ( * ) , SUM ( `COUNT` ) FROM `information_schema` . `INNODB_METRICS` WHERE NAME IN (...) AND"
    " `ENABLED` ",
)
OTHER_MONITORS = (  # MySQL 8's digest keeps the optimizer hint; mysqld_exporter's, PMM's and sys's reads
    "SELECT /*+ MAX_EXECUTION_TIME (?) */ `SCHEMA_NAME` , `DIGEST` FROM `performance_schema` ."
    " `events_statements_summary_by_digest` WHERE `LAST_SEEN` >= ?",
    "SHOW ENGINE `INNODB` STATUS ",
    "SELECT `t` . `TABLE_SCHEMA` , `t` . `TABLE_NAME` FROM `information_schema` . `tables` AS `t` LEFT JOIN"
    " `information_schema` . `partitions` `p` ON `p` . `TABLE_NAME` = `t` . `TABLE_NAME` WHERE `t` . `TABLE_SCHEMA`"
    " NOT IN (...)",
    "SELECT `user` , `host` FROM `mysql` . `user` ",
    "SELECT * FROM `sys` . `schema_table_lock_waits` ",
    "( SELECT ? FROM `performance_schema` . `threads` ) UNION ( SELECT ? FROM `information_schema` . `PROCESSLIST` )",
)
APPLICATION = (  # (SCHEMA_NAME, DIGEST_TEXT)
    ("sbtest", "UPDATE `sbtest1` SET `k` = `k` + ? WHERE `id` = ? "),
    ("sbtest", "SELECT `c` FROM `sbtest1` WHERE `id` = ? "),
    ("", "SELECT `c` FROM `sbtest` . `sbtest1` WHERE `id` = ? "),
    ("", "SELECT ? "),  # a connection pool's test query: no table
    ("", "SELECT @@`datadir` "),
    ("", "SET NAMES `utf8mb4` "),
    ("", "UPDATE `performance_schema` . `setup_consumers` SET `ENABLED` = ? WHERE NAME IN (...) "),  # a write
    ("", "GRANT SELECT ON `performance_schema` . * TO ? @? "),
    ("", "SELECT `a` FROM `performance_schema` . `threads` JOIN `app` . `sessions` USING ( `id` ) "),
    ("", "SELECT * FROM `performance_schema` . `threads` , `app` . `sessions` "),
    ("app", "SELECT * FROM `performance_schema` . `threads` `p` , `sessions` "),  # sessions is app.sessions
    ("", "SELECT * FROM `performance_schema` . `threads` WHERE `id` IN ( SELECT `b` FROM `app` . `t` ) "),
    ("", "SELECT * FROM `threads` "),  # a table of no known database
    ("", "SELECT * FROM `mysql` . `user` INTO OUTFILE ? "),  # writes a file
    ("app", "SELECT * FROM `performance_schema` . `threads` WHERE EXTRACT ( YEAR FROM `d` ) = ? "),  # not placed
)


@pytest.mark.parametrize("text", OUR_POLL)
def test_it_recognises_our_own_polls(text):
    assert is_monitoring_read("", text)


@pytest.mark.parametrize("text", OTHER_MONITORS)
def test_it_recognises_other_monitors_reads(text):
    assert is_monitoring_read("", text)


@pytest.mark.parametrize(("schema", "text"), APPLICATION)
def test_it_leaves_application_statements_and_writes_alone(schema, text):
    assert not is_monitoring_read(schema, text)


def test_a_table_without_a_schema_is_in_the_digests_database():
    assert is_monitoring_read("performance_schema", "SELECT * FROM `global_status` ")
    assert not is_monitoring_read("app", "SELECT * FROM `global_status` ")


def test_a_text_cut_after_a_system_schema_is_judged_on_what_it_shows():
    assert is_monitoring_read("", "SELECT ( SELECT COUNT ( * ) FROM `performance_schema` . ")
    assert not is_monitoring_read("", "SELECT ( SELECT COUNT ( * ) FROM `app` . ")
