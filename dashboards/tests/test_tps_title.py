"""A server's TPS row names the counter its line is drawn from, on the stability and purge charts.

The line follows the best transaction counter the server has on (collectors.transactions):
a title that always said Com_commit + Com_rollback was wrong wherever the transaction
summary was on. The expected titles are written out here, not taken from the code.
"""


import pytest

from collectors.batch import poll_server
from servers.models import Server
from testing.dashboards import figures

pytestmark = pytest.mark.django_db
CHARTS = {"stability": "stability-chart", "purge": "purge-chart"}


@pytest.fixture
def polled(mariadb, monitor_credentials):
    """A server and a function that polls its status twice (the second poll has its tps delta)."""
    server = Server(name="tps-title", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=5)
    server.password = monitor_credentials["password"]
    server.save()

    def poll() -> None:
        for _ in range(2):
            (source,) = poll_server(server.pk, only=["global_status"]).sources
            assert source.ok, source.error
    return server, poll


def titles(client, server: Server) -> dict[str, list[str]]:
    """Each chart's row titles, as the page sends them to Plotly."""
    found = {}
    for page, key in CHARTS.items():
        figure = figures(client.get(f"/servers/{server.pk}/{page}/"))[key]
        found[page] = [a["text"] for a in figure["layout"]["annotations"] if a["text"].startswith("<b>")]
    return found


@pytest.mark.usefixtures("transaction_instrument")
def test_with_the_transaction_summary_on_the_tps_rows_name_it(admin_client, polled):
    server, poll = polled
    poll()
    for page, rows in titles(admin_client, server).items():
        assert "<b>TPS (performance_schema transactions per second)</b>" in rows, (page, rows)
        assert not any("Com_commit" in row for row in rows), (page, rows)


def test_without_a_transaction_counter_the_tps_rows_name_com_commit_and_rollback(admin_client, polled):
    server, poll = polled
    poll()
    for page, rows in titles(admin_client, server).items():
        assert "<b>TPS (Com_commit + Com_rollback per second)</b>" in rows, (page, rows)


def test_a_server_never_polled_gets_a_title_that_names_no_counter(admin_client, polled):
    server, _poll = polled
    for page, rows in titles(admin_client, server).items():
        assert "<b>TPS (transactions per second)</b>" in rows, (page, rows)
