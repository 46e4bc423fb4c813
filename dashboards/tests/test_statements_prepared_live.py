"""sysbench's binary-protocol point selects on the suite's MariaDB: counted by Com_stmt_execute, absent from the
digest table, and the Statements tab says how many."""

import html
import subprocess
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from testing.polling import statements_polled_at
from testing.servers import make_server
from testing.workload import point_select_options

pytestmark = pytest.mark.django_db
EVENTS = 200  # oltp_point_select runs one point select an event (it sets point_selects to 1)
SOURCES = ["global_status", "statements"]
DIGESTED = ("SELECT COALESCE(SUM(COUNT_STAR), 0) FROM performance_schema.events_statements_summary_by_digest"
            " WHERE SCHEMA_NAME = 'steadystate_stress' AND DIGEST_TEXT LIKE '{} `sbtest1`%'")


@pytest.fixture
def sysbench(mariadb) -> list[str]:
    return point_select_options(mariadb)


def poll_time(server):
    return statements_polled_at(server.id, SOURCES)


def test_sysbench_prepared_selects_are_counted_though_not_digested(admin_client, mariadb, sysbench):
    server = make_server("prepared-live", mariadb.port)
    first = poll_time(server)  # the baselines
    assert mariadb.execute(DIGESTED.format("INSERT INTO"))[0][0] > 0  # the text-protocol prepare phase: digested
    digested = mariadb.execute(DIGESTED.format("SELECT `c` FROM"))[0][0]
    subprocess.run(["sysbench", "oltp_point_select", *sysbench, "--db-ps-mode=auto", "--threads=1",
                    f"--events={EVENTS}", "--time=0", "run"],
                   check=True, capture_output=True)
    assert mariadb.execute(DIGESTED.format("SELECT `c` FROM"))[0][0] == digested  # none of the executions
    last = poll_time(server)
    query = urlencode({"from": (first - timedelta(seconds=1)).isoformat(),
                       "to": (last + timedelta(seconds=1)).isoformat()})
    body = html.unescape(admin_client.get(f"/servers/{server.pk}/statements/?{query}").content.decode())
    assert f"{EVENTS:,} executions of server-side prepared statements in this range" in body
    assert "drive the load over the text protocol: sysbench's <code>--db-ps-mode=disable</code>" in body


def test_the_same_selects_over_the_text_protocol_are_digested(mariadb, sysbench):
    """What the Statements tab advises where prepared statements leave no digest: --db-ps-mode=disable."""
    digested = mariadb.execute(DIGESTED.format("SELECT `c` FROM"))[0][0]
    subprocess.run(["sysbench", "oltp_point_select", *sysbench, "--db-ps-mode=disable", "--threads=1",
                    f"--events={EVENTS}", "--time=0", "run"],
                   check=True, capture_output=True)
    assert mariadb.execute(DIGESTED.format("SELECT `c` FROM"))[0][0] == digested + EVENTS
