"""The stability chart's mutex row says what its counts are: OS waits, or every latch acquisition.

MariaDB 10.6+ prints nothing for SHOW ENGINE INNODB MUTEX; the collector reads the InnoDB latches
from performance_schema instead, whose COUNT_STAR counts every acquisition, contended or not
(thousands a second on a light load). A row titled "waits" would read as heavy contention.
The expected titles are written out here, not taken from the code.
"""

import pytest

from collectors.batch import poll_server
from collectors.models import ServerHealth
from servers.models import Server
from testing.dashboards import figures

pytestmark = pytest.mark.django_db
PFS_TITLE = "<b>InnoDB latch acquisitions per second (performance_schema, contended or not)</b>"
SHOW_TITLE = "<b>InnoDB mutex/rw-lock waits per second (SHOW ENGINE INNODB MUTEX)</b>"


def mutex_row_title(client, server: Server) -> str:
    figure = figures(client.get(f"/servers/{server.pk}/stability/"))["stability-chart"]
    return [a["text"] for a in figure["layout"]["annotations"] if a["text"].startswith("<b>")][-1]


def test_on_mariadb_the_row_says_acquisitions(admin_client, mariadb, monitor_credentials):
    server = Server(name="latches", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=5)
    server.password = monitor_credentials["password"]
    server.save()
    result = poll_server(server.pk, only=["pfs_waits", "innodb_mutex"])
    assert all(s.ok for s in result.sources), [s.error for s in result.sources]
    assert mutex_row_title(admin_client, server) == PFS_TITLE


def test_where_show_engine_answers_the_row_says_waits(admin_client):
    """A MySQL server's innodb_mutex health entry carries no performance_schema note."""
    server = Server.objects.create(name="mysql57", host="127.0.0.1", port=1, user="steady", poll_interval=5)
    ServerHealth.objects.create(server=server, sources={"innodb_mutex": {"ok": True, "note": ""}})
    assert mutex_row_title(admin_client, server) == SHOW_TITLE
