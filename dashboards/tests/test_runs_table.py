"""The runs list: threads, sweep, label and average TPS after the warm-up, sortable, and its CSV."""

import re
from datetime import timedelta

import pytest

from dashboards.window_reads import run_tps, runs_tps
from servers.models import Run
from testing.dashboards import EVIL, RECENT_T0, make_server
from testing.scalability import POLL, inside_rates, write_sweep

pytestmark = pytest.mark.django_db
LEVELS = {1: 1000, 2: 1800, 4: 1500}


@pytest.fixture
def runs():
    return write_sweep(make_server("lab1"), "rw", EVIL, RECENT_T0, LEVELS)


def avg(base: float) -> float:
    rates = inside_rates(base)
    return sum(r * POLL for r in rates) / (POLL * len(rates))


def names_in_order(html: str) -> list[str]:
    return re.findall(r"<td><strong>(rw x\d)</strong></td>", html)


def test_the_list_shows_threads_sweep_label_and_tps_after_warm_up(client, admin_user, runs):
    client.force_login(admin_user)
    html = client.get("/runs/").content.decode()
    assert f"{avg(1800):,.1f}" in html and "99,999" not in html  # the warm-up poll is left out
    assert '<a href="/scalability/?sweep=rw">rw</a>' in html
    assert EVIL not in html and "&lt;script&gt;" in html


def test_it_sorts_by_tps_and_by_threads(client, admin_user, runs):
    client.force_login(admin_user)
    assert names_in_order(client.get("/runs/", {"sort": "-tps"}).content.decode()) == ["rw x2", "rw x4", "rw x1"]
    assert names_in_order(client.get("/runs/", {"sort": "tps"}).content.decode()) == ["rw x1", "rw x4", "rw x2"]
    assert names_in_order(client.get("/runs/", {"sort": "concurrency"}).content.decode()) == ["rw x1", "rw x2", "rw x4"]
    bogus = client.get("/runs/", {"sort": "bogus"}).content.decode()
    assert names_in_order(bogus) == ["rw x4", "rw x2", "rw x1"]  # the newest first, as without sort=
    assert "sort=&#x27;bogus&#x27; is not a column of this table" in bogus and "sorted by -started" in bogus
    assert "is not a column" not in client.get("/runs/", {"sort": "-tps"}).content.decode()


def test_the_run_report_shows_the_tools_command_and_summary(client, admin_user, runs):
    client.force_login(admin_user)
    Run.objects.filter(pk=runs[1].pk).update(command="sysbench oltp_read_write --threads=2 run",
                                             tool_summary=f"SQL statistics:\n    transactions: 20 {EVIL}")
    html = client.get(f"/runs/{runs[1].pk}/report/").content.decode()
    assert "sysbench oltp_read_write --threads=2 run" in html and "transactions: 20" in html
    assert EVIL not in html and "2 threads · step of sweep" in html


def test_one_read_for_close_runs_gives_each_runs_own_figures(runs):
    far = write_sweep(runs[0].server, "later", "", RECENT_T0 - timedelta(days=3), {1: 700})
    together = runs_tps(runs + far)
    assert together == {r.pk: run_tps(r) for r in runs + far}
    assert together[far[0].pk].avg == pytest.approx(avg(700))
