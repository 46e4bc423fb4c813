"""Flavor, version and performance_schema detection on servers that cannot run here (recorded answers)."""

import pymysql

from collectors import transactions
from collectors.connection import detect
from collectors.tests.recorded import RecordedConnection

NO_VARIABLE = pymysql.err.InternalError(1193, "Unknown system variable 'performance_schema'")


def test_mysql_51_has_no_performance_schema_variable_and_still_connects():
    conn = RecordedConnection({"@@performance_schema": NO_VARIABLE,  # MySQL before 5.5.3: error 1193
                               "@@version_comment": [("5.1.73-log", "MySQL Community Server (GPL)", 0)]})
    info = detect(conn)
    assert (info.flavor, info.version_tuple, info.performance_schema) == ("mysql", (5, 1, 73), False)
    assert info.tps_basis == transactions.EXPLICIT
    assert len(conn.executed) == 2  # asked nothing a 5.1 server lacks besides the variable


def test_mysql_80_with_the_transaction_instrument_counts_every_transaction():
    conn = RecordedConnection({"setup_consumers": [("YES", "YES")],
                               "@@version_comment": [("8.0.36", "MySQL Community Server - GPL", 1)]})
    info = detect(conn)
    assert info.performance_schema and info.tps_basis == transactions.TRX_SUMMARY


def test_mysql_57_with_the_instrument_off_falls_back_to_innodb_trx_counters_if_enabled():
    conn = RecordedConnection({"setup_consumers": [("NO", "YES")],  # 5.7's default: transaction instrument off
                               "INNODB_METRICS": [(3, 123456)],
                               "@@version_comment": [("5.7.44-log", "MySQL Community Server (GPL)", 1)]})
    info = detect(conn)
    assert info.tps_basis == transactions.INNODB_TRX
    assert "STATUS = 'enabled'" in conn.executed[-1]  # MySQL's column, not MariaDB 10.5+'s ENABLED
