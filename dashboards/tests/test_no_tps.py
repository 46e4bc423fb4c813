"""A server counting explicit transactions only under an autocommit load: 0 TPS is no steady line, and each
page that shows TPS says the statement that turns a better counter on (as the fleet and Servers list do)."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT, INNODB_TRX_ON, TRX_SUMMARY_ON
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
POLLS = 18  # as in the finding: 18 points over 90 s


@pytest.fixture
def autocommit():
    """MariaDB 10.11 at its defaults (InnoDB trx counters off): 30,000 autocommit UPDATEs, no COMMIT."""
    server = data.make_server("defaults", poll_interval=5, flavor="mariadb", version="10.11.19")
    values = {"tps": 0, "tps_explicit": 0, "qps": 2_000}
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i in range(1, POLLS + 1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[EXPLICIT]}})
    return server


def window() -> dict:
    return {"from": T0.isoformat(), "to": (T0 + timedelta(seconds=5 * POLLS + 2)).isoformat()}


def verdict_of(body: str) -> str:
    return body.split('id="verdict"')[1].split("</section>")[0]


def test_the_stability_page_says_no_transactions_counted_and_how_to_count_them(admin_client, autocommit):
    body = admin_client.get(f"/servers/{autocommit.pk}/stability/", window()).content.decode()
    verdict = verdict_of(body)
    assert "Steady" not in verdict and "warm-up" not in verdict and "CV" not in verdict
    assert "No transactions counted in this range" in verdict
    # MariaDB 10.11 has both better counters: the statements the fleet's basis gives (server_texts.tps_basis_of).
    assert escape(INNODB_TRX_ON) in verdict and escape(TRX_SUMMARY_ON) in verdict
    assert body.count(escape(INNODB_TRX_ON)) >= 2  # beside the chart's TPS sentence too


def test_one_commit_amid_an_autocommit_load_is_no_line_to_judge_either(admin_client):
    """Seen live: 4,000 autocommit UPDATEs a second, the one COMMIT of a session that held a read view counted,
    read "Noisy: TPS swings around its level ... (CV 519.6 %)" over a line of 0s."""
    server = data.make_server("one-commit", poll_interval=5, flavor="mariadb", version="10.11.19")
    polls = [{"tps": int(i == 9), "tps_explicit": int(i == 9), "qps": 20_000} for i in range(1, POLLS + 1)]
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i, values in enumerate(polls, start=1)])
    # The read view that session held: the history length climbs 20,000 a poll to 160,000, then falls to 300.
    lengths = [0, *(20_000 * k for k in range(1, 9)), 300, *([300] * (POLLS - 10))]
    write_samples([Sample(server.pk, "history_length", T0 + timedelta(seconds=5 * i), None,
                          {"history_list_length": v}) for i, v in enumerate(lengths, start=1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[EXPLICIT]}})
    verdict = verdict_of(admin_client.get(f"/servers/{server.pk}/stability/", window()).content.decode())
    # By hand: 1 transaction in the 18 polls' 90 s, fewer than the 5 a dip needs to be told from chance.
    assert "Next to no transactions counted in this range: 1 in all, too few for a line to judge" in verdict
    assert "CV" not in verdict and "Noisy" not in verdict and escape(INNODB_TRX_ON) in verdict
    # The answer about purge stays: the rise to 160,000 at the 9th poll (00:45) and the fall to 300 at the 10th.
    rose, fell = (f"{T0 + timedelta(seconds=s):%H:%M:%S}" for s in (45, 50))
    assert f"History length rose to 160,000 at {rose}" in verdict and f"fell to 300 at {fell}" in verdict


def test_a_run_of_one_commit_amid_an_autocommit_load_is_no_line_to_judge_either(admin_client):
    """The run report and its range on the stability page said "No transactions counted" only where the run's
    polls counted none: a run that counted one read a verdict over a line of 0s."""
    server = data.make_server("one-commit-run", poll_interval=5, flavor="mariadb", version="10.11.19")
    polls = [{"tps": int(i == 9), "tps_explicit": int(i == 9), "qps": 20_000} for i in range(1, POLLS + 1)]
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i, values in enumerate(polls, start=1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[EXPLICIT]}})
    run = Run.objects.create(server=server, name="autocommit updates", started_at=T0,
                             ended_at=T0 + timedelta(seconds=5 * POLLS))
    # By hand: the 18 polls' intervals all lie inside the run (T0 to T0 + 90 s), and they counted 1 transaction.
    said = "Next to no transactions counted in this run: 1 in all, too few for a line to judge"
    report = verdict_of(admin_client.get(f"/runs/{run.pk}/report/").content.decode())
    assert said in report and "CV" not in report and escape(INNODB_TRX_ON) in report
    its_range = {"from": T0.isoformat(), "to": (T0 + timedelta(seconds=5 * POLLS)).isoformat()}  # as it links it
    page = verdict_of(admin_client.get(f"/servers/{server.pk}/stability/", its_range).content.decode())
    assert "Next to no transactions counted in this range: 1 in all" in page and "CV" not in page


def test_the_purge_page_and_run_report_say_the_statement_where_they_show_tps(admin_client, autocommit):
    purge = admin_client.get(f"/servers/{autocommit.pk}/purge/", window()).content.decode()
    assert escape(INNODB_TRX_ON) in purge
    run = Run.objects.create(server=autocommit, name="autocommit updates", started_at=T0,
                             ended_at=T0 + timedelta(seconds=5 * POLLS))
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    verdict = verdict_of(report)
    assert "No transactions counted in this run" in verdict and "Steady" not in verdict
    assert escape(INNODB_TRX_ON) in verdict


def test_a_server_that_counts_its_transactions_keeps_its_verdict_and_says_no_statement(admin_client):
    server = data.make_server("counted", poll_interval=5, flavor="mariadb", version="10.11.19")
    values = {"tps": 500, "qps": 2_000}
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i in range(1, POLLS + 1)])
    body = admin_client.get(f"/servers/{server.pk}/stability/", window()).content.decode()
    assert "Steady (CV 0.0" in verdict_of(body) and escape(INNODB_TRX_ON) not in body


def test_a_server_with_performance_schema_off_is_told_to_restart_not_to_update_setup_instruments(admin_client):
    """MariaDB 10.11 left at its defaults (performance_schema OFF, as the machine's own server on 3306): the
    health row as a poll of it stored it. setup_instruments is empty with performance_schema OFF (the manual:
    performance_schema can only be turned on at startup), so the UPDATE does nothing there: the fix is the
    configuration line and a restart, or InnoDB's counters, which need no performance_schema."""
    server = data.make_server("defaults-ps-off", poll_interval=5, flavor="mariadb", version="10.11.19")
    values = {"tps": 0, "tps_explicit": 0, "qps": 2_000}
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i in range(1, POLLS + 1)])
    off = ("defaults-ps-off: pfs_waits: performance_schema is OFF on this server, so pfs_waits has nothing to read; "
           "set performance_schema=ON under [mariadb] in the server's option file and restart it")
    ServerHealth.objects.create(server=server, sources={
        "global_status": {"ok": True, "status": "ok", "note": DEFINITIONS[EXPLICIT]},
        "pfs_waits": {"ok": False, "status": "off", "error": off}})
    restart = ("set performance_schema=ON and performance-schema-instrument=&#x27;transaction=ON&#x27; under [mariadb] "
               "in the server&#x27;s option file and restart it")
    for page in (f"/servers/{server.pk}/stability/", f"/servers/{server.pk}/purge/"):
        body = admin_client.get(page, window()).content.decode()
        assert restart in body, page
        assert escape(TRX_SUMMARY_ON) not in body, page
        assert escape(INNODB_TRX_ON) in body, page  # InnoDB's counters need no performance_schema
    fleet = admin_client.get("/").content.decode()
    assert restart in fleet and escape(TRX_SUMMARY_ON) not in fleet
