"""MariaDB's digest table has no row for a server-side prepared execution: the Statements tab and the run
report count them from Com_stmt_execute (the expected counts are summed here from the polls written)."""

from dataclasses import replace

import pytest

from servers.models import Run
from store.ingest import write_samples
from testing.dashboards import TEN_MINUTES, global_status, history, make_server, mutexes, pfs_waits, purge
from testing.statements import write_reads

pytestmark = pytest.mark.django_db
START, END = TEN_MINUTES  # polls every 10 s; ten statement reads every 60 s, the first ending at START + 60 s
RANGE = {"from": START.isoformat(), "to": END.isoformat()}
SENTENCE = ("executions of server-side prepared statements in {} (Com_stmt_execute) are not in MariaDB's digest "
            "table: their statements are missing from this table, and time per transaction divides the listed "
            "statements' time by all the transactions TPS counts, theirs included")


def executes(i: int) -> int:
    return 1000 + i


def prepared_server(flavor: str, reads: bool = True, **fields):
    server = make_server(f"ps-{flavor}-{reads}", poll_interval=10, flavor=flavor, **fields)
    status = [replace(poll, values={**poll.values, "Com_stmt_execute": executes(i)},
                      counters=poll.counters | {"Com_stmt_execute"}) if i else poll
              for i, poll in enumerate(global_status(server.pk, START, 61))]
    others = [poll for source in (pfs_waits, history, mutexes, purge) for poll in source(server.pk, START, 61)]
    write_samples(status + others)  # testing.dashboards.write_run_data's polls, with Com_stmt_execute
    if reads:
        write_reads(server.pk, START, 10)
    return server


def test_the_tab_counts_the_prepared_executions_the_digest_table_left_out(admin_client):
    server = prepared_server("mariadb")
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    # The reads cover (START, END]: the polls 1..60.
    assert f"61,830 {SENTENCE.format('this range')}" in body.replace("&#x27;", "'")


def test_no_digest_row_but_prepared_executions_says_so_instead_of_the_consumer(admin_client):
    server = prepared_server("mariadb", reads=False)
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode().replace("&#x27;", "'")
    assert "No statement digests recorded" in body and f"61,830 {SENTENCE.format('this range')}" in body
    assert "consumer may be off" not in body


def test_mysql_digests_its_prepared_executions_so_no_note(admin_client):
    server = prepared_server("mysql")
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode().replace("&#x27;", "'")
    assert "server-side prepared" not in body and "10 reads covering 600 s" in body


def test_a_run_report_counts_them_over_the_reads_after_its_warm_up(admin_client):
    server = prepared_server("mariadb")
    run = Run.objects.create(name="ps", server=server, started_at=START, ended_at=END, warmup_seconds=60)
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode().replace("&#x27;", "'")
    section = body.split('id="top-statements"')[1].split("</section>")[0]
    # The reads wholly after the warm-up end at START + 120 ... 600 s: they cover the polls 7..60.
    expected = sum(executes(i) for i in range(7, 61))
    assert expected == 55_809
    assert f"55,809 {SENTENCE.format('this run')}" in section


def test_compare_names_the_run_whose_prepared_executions_are_left_out(admin_client):
    runs = [Run.objects.create(name=f"run-{flavor}", server=prepared_server(flavor), started_at=START, ended_at=END,
                               warmup_seconds=60) for flavor in ("mysql", "mariadb")]
    ids = ",".join(str(run.pk) for run in runs)
    for url in ("/compare/", "/reports/compare/"):
        body = admin_client.get(url, {"runs": ids}).content.decode().replace("&#x27;", "'")
        section = body.split('id="statements-changed"')[1]
        assert f"55,809 {SENTENCE.format('run run-mariadb')}" in section  # the polls 7..60, as the report's
        assert "run run-mysql" not in section
