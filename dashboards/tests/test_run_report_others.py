"""The run report says when the server counted other clients' transactions beside the load's own."""

import pytest

from servers.models import Run
from testing.ab import write_runs
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db


def report(admin_client, server_tps: float, own_tps: float | None, sysbench: bool = False) -> str:
    server = make_server(f"shared-{server_tps}-{own_tps}-{sysbench}")
    (run,) = write_runs(server, "demo load", RECENT_T0, [server_tps])
    if own_tps is not None and sysbench:  # bench_run keeps sysbench's summary; its rate is parsed from it
        Run.objects.filter(pk=run.pk).update(tool_summary=f"transactions: 9000 ({own_tps:.2f} per sec.)")
    elif own_tps is not None:
        Run.objects.filter(pk=run.pk).update(client_figures={"tool": "stress", "tps": own_tps})
    return admin_client.get(f"/runs/{run.pk}/report/").content.decode()


def test_a_load_that_ran_a_quarter_of_the_servers_transactions_is_told_apart(admin_client):
    body = report(admin_client, 600.0, 150.0)
    # (600 - 150) / 600 = 75.0 % of the server's transactions were not the load's.
    assert "other clients: 75.0 % of the transactions" in body
    assert "the server counted 600.0 TPS, the load 150.0 TPS" in body


def test_within_five_per_cent_or_without_its_own_count_nothing_is_said(admin_client):
    assert "other clients" not in report(admin_client, 600.0, 580.0)  # 3.3 %: the polls' edges
    assert "other clients" not in report(admin_client, 600.0, None)


def test_a_sysbench_runs_own_rate_is_read_from_its_summary(admin_client):
    body = report(admin_client, 600.0, 150.0, sysbench=True)
    assert "other clients: 75.0 % of the transactions" in body  # (600 - 150) / 600, as for stress
