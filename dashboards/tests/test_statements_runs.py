"""Top statements per run (report, compare) and the statements whose time per transaction changed most."""

import html
import re
from dataclasses import replace
from datetime import timedelta
from urllib.parse import urlencode

import pytest

from servers.models import Run
from testing.dashboards import TEN_MINUTES, get_csv, make_server, tps_delta, write_run_data
from testing.statements import MS, POINT, SLEEPY, UPDATE, Shape, write_reads

pytestmark = pytest.mark.django_db
START, END = TEN_MINUTES
TRANSACTIONS = sum(tps_delta(i) for i in range(1, 61))  # each server's TPS polls in (START, END]
SLOWER = replace(SLEEPY, latency_ps=100 * MS)  # the same digest, twice as slow on server B


def two_runs():
    runs = []
    for name, shapes in (("a", (SLEEPY, POINT, UPDATE)), ("b", (SLOWER, POINT, UPDATE))):
        server = make_server(name, poll_interval=10)
        write_run_data(server.pk, START, 61)
        write_reads(server.pk, START, 10, shapes=shapes)
        runs.append(Run.objects.create(name=f"run-{name}", server=server, started_at=START, ended_at=END))
    return runs


def test_the_statement_that_slowed_down_changed_most_per_transaction(admin_client):
    a, b = two_runs()
    rows = get_csv(admin_client, "/export/statements.csv", runs=f"{a.pk},{b.pk}")
    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["digest"] == SLEEPY.digest
    # 100 executions at 50 ms, then at 100 ms, over the same transactions: 5 s more per TRANSACTIONS.
    assert float(first["A time per transaction (ms)"]) == pytest.approx(5e12 / TRANSACTIONS / 1e9)
    assert float(first["change B-A per transaction (ms)"]) == pytest.approx(5e12 / TRANSACTIONS / 1e9)
    assert float(first["ratio B/A per transaction"]) == pytest.approx(2.0)
    assert all(float(dict(zip(rows[0], r, strict=True))["change B-A per transaction (ms)"]) == 0 for r in rows[2:])
    body = admin_client.get("/compare/", {"runs": f"{a.pk},{b.pk}"}).content.decode()
    section = body.split('id="statements-changed"')[1]
    assert section.index("SLEEP") < section.index("UPDATE") and "×2.00" in section
    assert "top 5 statements" in body
    report = admin_client.get("/reports/compare/", {"runs": f"{a.pk},{b.pk}"}).content.decode()
    assert "Statements whose time per transaction changed most" in report and "×2.00" in report


def test_a_run_report_lists_its_top_statements(admin_client):
    a, _ = two_runs()
    body = admin_client.get(f"/runs/{a.pk}/report/").content.decode()
    section = body.split('id="top-statements"')[1].split("</section>")[0]
    assert section.index("SLEEP") < section.index("UPDATE") < section.index("SELECT `v`")
    rows = get_csv(admin_client, "/export/statements.csv", runs=str(a.pk))
    assert rows[1][2] == SLEEPY.digest and rows[1][4] == "100"


def test_a_run_shorter_than_a_read_lists_the_reads_that_cover_it(admin_client):
    """Seen live: a 100 s run at the default 60 s statements interval had an empty table on its report while its
    dip's link to the Statements tab listed statements. By hand: reads end at START + 60 k s; a run from
    START + 70 s to + 150 s holds none whole; the reads ending at + 120 s and + 180 s (the one holding its end)
    cover it, from + 60 s to + 180 s: SLEEPY's 10 executions in each, 20."""
    server = make_server("short", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10)
    run = Run.objects.create(name="short", server=server, started_at=START + timedelta(seconds=70),
                             ended_at=START + timedelta(seconds=150))  # no read's whole interval inside
    body = html.unescape(admin_client.get(f"/runs/{run.pk}/report/").content.decode())
    section = body.split('id="top-statements"')[1].split("</section>")[0]
    assert "No statement digests inside this run" not in section
    begin, end = START + timedelta(seconds=60), START + timedelta(seconds=180)
    assert (f"No statement digest read lies wholly inside this run (the statements source reads every 60 s): the "
            f"table sums the reads that cover it, from {begin:%Y-%m-%d %H:%M:%S} to {end:%H:%M:%S} UTC") in section
    link = re.search(r'<a href="([^"]+)">The Statements tab over those reads</a>', section).group(1)
    assert link == f"/servers/{server.pk}/statements/?" + urlencode(
        {"from": begin.replace(tzinfo=None).isoformat(timespec="microseconds"),
         "to": end.replace(tzinfo=None).isoformat(timespec="microseconds")})
    sleepy = section[section.index("SELECT SLEEP"):]
    assert re.search(r'<td class="num">([^<]*)</td>', sleepy).group(1) == "20"


def test_a_run_with_no_read_around_it_has_no_statements_and_says_why(admin_client):
    server = make_server("unread", poll_interval=10)
    write_run_data(server.pk, START, 61)
    run = Run.objects.create(name="short", server=server, started_at=START + timedelta(seconds=70),
                             ended_at=START + timedelta(seconds=150))
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    assert "No statement digests inside this run" in body


def test_a_run_whose_reads_hold_only_monitoring_reads_says_so(admin_client):
    """A sysbench run on MariaDB: its prepared statements leave no digest, the monitor's reads do."""
    server = make_server("mon", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10, shapes=(Shape("d-show", "SHOW GLOBAL STATUS", 12, MS // 2, schema=""),))
    run = Run.objects.create(name="sysbench", server=server, started_at=START, ended_at=END)
    body = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    section = body.split('id="top-statements"')[1].split("</section>")[0]
    assert "Monitoring reads: 120 executions" in section  # 12 in each of the 10 reads inside the run
    assert "No statement inside this run but the monitoring reads above" in section
    assert "only reads whose whole interval lies inside the run count" not in section  # they did lie inside


def test_three_runs_are_refused_by_the_statements_csv(admin_client):
    a, b = two_runs()
    response = admin_client.get("/export/statements.csv", {"runs": f"{a.pk},{b.pk},{a.pk + b.pk + 1000}"})
    assert response.status_code == 400


def test_a_compared_run_shorter_than_a_read_says_why_its_column_is_empty(admin_client):
    """Seen live: two 90 s stress runs (10 s warm-up) on a server read every 60 s: the first held no read whose
    whole interval lay inside its 80 s, and the compare page listed every statement of the second "largest
    change first" with the first's cells blank and no word why. By hand: reads end at START + 60 k s; a run
    from START + 70 s to + 150 s holds none (the read ending at + 120 s began at + 60 s), one over the ten
    minutes holds all ten."""
    server = make_server("short", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10)
    short = Run.objects.create(name="short", server=server, started_at=START + timedelta(seconds=70),
                               ended_at=START + timedelta(seconds=150))
    whole = Run.objects.create(name="whole", server=server, started_at=START, ended_at=END)
    body = admin_client.get("/compare/", {"runs": f"{short.pk},{whole.pk}"}).content.decode()
    section = body.split('id="statements-changed"')[1].split("</section>")[0]
    assert "Run short: no statement digest read lies wholly inside it" in section
    assert "read every 60 s" in section and "Run whole:" not in section
    assert "the changes below are the other run's statements alone" in section


def test_two_compared_runs_shorter_than_a_read_name_no_other_run_to_read(admin_client):
    """Seen live: two 45 s sysbench steps (5 s warm-up) on a server read every 60 s held no read each, and each
    said "the changes below are the other run's statements alone" above "No statement digests inside either run".
    By hand: reads end at START + 60 k s; runs from + 70 s to + 110 s and + 130 s to + 170 s hold none."""
    server = make_server("short", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10)
    runs = [Run.objects.create(name=f"short{i}", server=server, started_at=START + timedelta(seconds=start),
                               ended_at=START + timedelta(seconds=start + 40)) for i, start in ((1, 70), (2, 130))]
    body = admin_client.get("/compare/", {"runs": ",".join(str(run.pk) for run in runs)}).content.decode()
    section = body.split('id="statements-changed"')[1].split("</section>")[0]
    assert "Run short1: no statement digest read lies wholly inside it" in section
    assert "Run short2: no statement digest read lies wholly inside it" in section
    assert "the other run's statements alone" not in section
    assert "No statement digests inside either run to compare." in section
