"""The replication source on a MariaDB of its own (10.11 here): where SHOW ALL SLAVES STATUS ran once on a
connection, a count of the configured connections stands in for it while none is configured; a replica that
is configured but stopped, or configured later, is still read by SHOW and reported as before. In a poll the
count is a part of the shared statement, not a statement of its own."""

import pytest

from collectors import shared_read
from collectors.connection import detect, open_connection
from collectors.source import SourceUnavailable
from collectors.sources import pfs_waits, replication
from testing.mariadb import running_sandbox

# A replica whose source does not answer (port 1) and that is never started: configured, both threads stopped.
CONFIGURE = "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=1, MASTER_USER='nobody'"


@pytest.fixture(scope="module")
def server():
    with running_sandbox("steadystate-replication-") as sandbox:
        sandbox.execute("CREATE USER 'nomonitor'@'%' IDENTIFIED BY 'n0!'",
                        "GRANT SELECT ON performance_schema.* TO 'nomonitor'@'%'")
        yield sandbox


@pytest.fixture
def conn(server):
    connection = open_connection(host="127.0.0.1", port=server.port, user="steady", password="s3cret!")
    yield connection
    connection.close()
    server.execute("RESET SLAVE ALL")


def statements(server) -> int:
    """Statements the monitoring user ran so far."""
    return int(server.execute("SELECT SUM(COUNT_STAR) FROM"
                              " performance_schema.events_statements_summary_by_user_by_event_name"
                              " WHERE USER = 'steady'")[0][0])


def shared_reading(conn, info):
    """replication's reading from a shared statement with the waits (None: it reads alone)."""
    shared = shared_read.read(conn, info, [pfs_waits.SOURCE, replication.SOURCE])
    return replication.from_shared(shared.texts["replication"], conn, info)


def shows(server) -> int:
    """SHOW ... SLAVE(S) STATUS statements the server ran so far."""
    return int(server.execute("SHOW GLOBAL STATUS LIKE 'Com_show_slave_status'")[0][1])


def test_it_counts_the_configured_connections_once_show_ran(server, conn):
    info = detect(conn)
    first = replication.collect(conn, info)
    before = shows(server)
    second = replication.collect(conn, info)
    assert shows(server) == before  # the count, no SHOW
    for reading in (first, second):
        assert (reading.values, reading.note, reading.quiet) == ({}, replication.NOT_A_REPLICA, True)


def test_a_configured_stopped_replica_is_read_by_show(server, conn):
    info = detect(conn)
    replication.collect(conn, info)  # no replica yet: the next read counts first
    server.execute(CONFIGURE)
    before = shows(server)
    reading = replication.collect(conn, info)
    assert shows(server) == before + 1
    # Both threads No: 0 and 0; Seconds_Behind_Master NULL, so no lag stored.
    assert reading.values == {"replica.io_running": 0, "replica.sql_running": 0}
    assert reading.note == "replication: I/O thread No, SQL thread No, lag n/a" and not reading.quiet


def test_a_user_without_slave_monitor_is_told_every_read(server):
    conn = open_connection(host="127.0.0.1", port=server.port, user="nomonitor", password="n0!")
    try:
        info = detect(conn)
        for _ in range(2):  # performance_schema's count would answer this user: SHOW is asked each time
            with pytest.raises(SourceUnavailable, match="SLAVE MONITOR"):
                replication.collect(conn, info)
    finally:
        conn.close()


def test_the_count_is_a_part_of_the_shared_statement_once_show_ran(server, conn):
    info = detect(conn)
    assert shared_reading(conn, info) is None  # no SHOW yet on this connection: collect() asks it
    replication.collect(conn, info)
    before, shown = statements(server), shows(server)
    reading = shared_reading(conn, info)
    assert (statements(server), shows(server)) == (before + 1, shown)  # the shared statement alone
    assert (reading.values, reading.note, reading.quiet) == ({}, replication.NOT_A_REPLICA, True)
    server.execute(CONFIGURE)
    reading = shared_reading(conn, info)
    assert (statements(server), shows(server)) == (before + 3, shown + 1)  # a configured one: SHOW reads it
    assert reading.values == {"replica.io_running": 0, "replica.sql_running": 0} and not reading.quiet
