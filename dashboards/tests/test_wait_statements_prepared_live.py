"""sysbench's binary-protocol point selects on the suite's MariaDB: the waits page's answer "which statements made
the top wait" says that MariaDB's digest table left their executions out, and how to see them."""

import html
import re
import subprocess
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from testing.polling import statements_polled_at
from testing.servers import make_server
from testing.workload import point_select_options

pytestmark = pytest.mark.django_db
EVENTS = 200  # oltp_point_select runs one point select an event (it sets point_selects to 1): Com_stmt_execute
SOURCES = ["global_status", "pfs_waits", "statements"]


@pytest.fixture
def sysbench(mariadb) -> list[str]:
    return point_select_options(mariadb)


def poll_time(server):
    return statements_polled_at(server.id, SOURCES)


def test_the_wait_answer_says_the_prepared_statements_are_not_listed(admin_client, mariadb, sysbench):
    server = make_server("wait-prepared-live", mariadb.port)
    first = poll_time(server)  # the baselines
    subprocess.run(["sysbench", "oltp_point_select", *sysbench, "--db-ps-mode=auto", "--threads=1",
                    f"--events={EVENTS}", "--time=0", "run"], check=True, capture_output=True)
    last = poll_time(server)
    query = urlencode({"from": (first - timedelta(seconds=1)).isoformat(),
                       "to": (last + timedelta(seconds=1)).isoformat()})
    page = html.unescape(admin_client.get(f"/servers/{server.pk}/waits/?{query}").content.decode())
    answer = page[page.index('<div class="wait-answer">'):]
    answer = answer[:answer.index("</div>")]
    said = re.sub(r"\s+", " ", answer)
    assert f"{EVENTS:,} executions of server-side prepared statements over these reads' span (Com_stmt_execute)" \
           " are not in MariaDB's digest table" in said, said
    assert "drive the load over the text protocol: sysbench's <code>--db-ps-mode=disable</code>" in said
