"""A monitoring read stopped by the session's own time limit is said as such, not as a bare error code."""

import pymysql

from collectors.poll import describe


def test_it_says_the_monitors_own_limit_stopped_the_read():
    exc = pymysql.err.InternalError(1969, "Query execution was interrupted (max_statement_time exceeded)")
    assert describe(exc) == (
        "stopped after 5 s by the monitor's own time limit on each of its statements, which keeps it from"
        " loading the server: this poll has no reading from it, the next poll reads it again"
        " (Query execution was interrupted (max_statement_time exceeded))")


def test_mysqls_max_execution_time_is_said_the_same_way():
    exc = pymysql.err.OperationalError(3024, "Query execution was interrupted, maximum statement execution time"
                                             " exceeded")
    assert describe(exc).startswith("stopped after 5 s by the monitor's own time limit")
