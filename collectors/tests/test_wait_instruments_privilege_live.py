"""wait_instruments for a monitoring user without SELECT on performance_schema, on the test MariaDB.

Seen live: `manage.py poll` printed "wait_instruments: ok, 0 values", nothing saying the read was refused.
"""

from io import StringIO

import pytest
from django.core.management import call_command

from collectors.batch import poll_server

USER, PASSWORD = "wi_nopfs", "wi-np"
# Written out by hand: what the source must say, the GRANT named as the other sources name theirs.
REFUSED = ("the monitoring user may not read performance_schema.setup_instruments, so which wait instruments are "
           "off cannot be read: GRANT SELECT ON performance_schema.* TO the monitoring user (docs/privileges.md)")


@pytest.fixture
def no_pfs_select(mariadb):
    """Every privilege of docs/privileges.md but SELECT on performance_schema."""
    mariadb.create_monitor_user(USER, PASSWORD, grants=False)
    mariadb.execute(f"GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO '{USER}'@'%'")
    yield mariadb
    mariadb.execute(f"DROP USER '{USER}'@'%'")


def test_it_says_the_read_was_refused_and_names_the_grant(no_pfs_select, make_server):
    server = make_server("wi-no-pfs-select", no_pfs_select.port, user=USER, password=PASSWORD)
    outcome = poll_server(server.id, only=["wait_instruments"]).sources[0]
    assert not outcome.ok and outcome.unavailable
    assert outcome.error == f"wi-no-pfs-select: wait_instruments: {REFUSED}"
    out = StringIO()
    call_command("poll", server.name, "--source", "wait_instruments", stdout=out)
    assert "wait_instruments: UNAVAILABLE" in out.getvalue() and REFUSED in out.getvalue()
    assert "0 values" not in out.getvalue()


def test_it_still_reads_the_instruments_with_the_grant(mariadb, make_server):
    mariadb.create_monitor_user(USER, PASSWORD)
    try:
        server = make_server("wi-pfs-select", mariadb.port, user=USER, password=PASSWORD)
        outcome = poll_server(server.id, only=["wait_instruments"]).sources[0]
        assert outcome.ok, outcome.error
        assert outcome.sample and outcome.sample.values
    finally:
        mariadb.execute(f"DROP USER '{USER}'@'%'")
