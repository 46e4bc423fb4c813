"""Monitoring reads on the statement pages: a poll like ours beside a sysbench-like workload, figures by hand.

Ten 60 s reads, each with: our shared poll (6 executions of 50 ms: 0.3 s), a SHOW (1 of 5 ms), a sysbench
UPDATE (100 of 2 ms: 0.2 s), a point SELECT (500 of 0.2 ms: 0.1 s) and the rest row (7 of 1 ms).
Over the range: poll 3.0 s, SHOW 0.05 s, UPDATE 2.0 s, SELECT 1.0 s, rest 0.07 s: 6.12 s in all, of which
the monitoring reads are 3.05 s (70 executions) and the rest 3.07 s.
"""

from dataclasses import replace

import pytest

from servers.models import Run
from testing.dashboards import TEN_MINUTES, get_csv, make_server, tps_delta, write_run_data
from testing.statements import MS, Shape, write_reads

pytestmark = pytest.mark.django_db
START, END = TEN_MINUTES
RANGE = {"from": START.isoformat(), "to": END.isoformat()}
TRANSACTIONS = sum(tps_delta(i) for i in range(1, 61))  # the TPS polls in (START, END]
POLL_TEXT = ("SELECT ( SELECT `CONCAT_WS` ( ? , COUNT ( * ) , GROUP_CONCAT ( `VARIABLE_NAME` , ? , `VARIABLE_VALUE`"
             " SEPARATOR ? ) ) FROM `performance_schema` . `global_status` WHERE `VARIABLE_NAME` NOT IN (...) ) , ("
             " SELECT `CONCAT_WS` ( ? , COUNT ( * ) , GROUP_CONCAT ( NAME , ? , `COUNT` SEPARATOR ? ) ) FROM"
             " `information_schema` . `INNODB_METRICS` WHERE `ENABLED` ) ")
POLL = Shape("d-poll", POLL_TEXT, 6, 50 * MS, schema="")  # our poll names no database
SHOW = Shape("d-show", "SHOW GLOBAL STATUS LIKE ? ", 1, 5 * MS, schema="")
UPDATE = Shape("d-update", "UPDATE `sbtest1` SET `k` = `k` + ? WHERE `id` = ? ", 100, 2 * MS, schema="sbtest")
POINT = Shape("d-point", "SELECT `c` FROM `sbtest1` WHERE `id` = ? ", 500, MS // 5, schema="sbtest")
SHAPES = (POLL, SHOW, UPDATE, POINT)
ALL_S, MONITORING_S, OTHERS_S = 6.12, 3.05, 3.07


def light_run(name="light", shapes=SHAPES):
    server = make_server(name, poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10, shapes=shapes)
    return server


def table_rows(body: str) -> list[str]:
    return body.split('<table class="statements">')[1].split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]


def ranked_digests(body: str) -> list[str]:
    return [next(s.digest for s in SHAPES if f"· {s.digest}" in row) for row in table_rows(body)]


def test_the_workload_ranks_first_and_the_monitoring_reads_are_one_line(admin_client):
    server = light_run()
    body = admin_client.get(f"/servers/{server.pk}/statements/", RANGE).content.decode()
    assert ranked_digests(body) == [UPDATE.digest, POINT.digest]
    assert ("Monitoring reads: 70 executions, 3.05 s, 49.8 % of statement time in this range"  # 3.05 / 6.12
            in body)
    assert "left out of the ranking and of its shares" in body
    update = table_rows(body)[0]
    assert "65.1 %" in update and "2.00 s" in update and "1,000" in update  # 2.0 / 3.07; its own figures as before
    assert "tag-monitoring" not in "".join(table_rows(body))
    assert "6.12 s" in body  # every statement: the table's change, monitoring reads included


def test_the_toggle_ranks_them_with_the_rest_labelled(admin_client):
    server = light_run()
    body = admin_client.get(f"/servers/{server.pk}/statements/", {**RANGE, "monitoring": "1"}).content.decode()
    assert ranked_digests(body) == [POLL.digest, UPDATE.digest, POINT.digest, SHOW.digest]  # 3.0, 2.0, 1.0, 0.05 s
    rows = dict(zip(ranked_digests(body), table_rows(body), strict=True))
    assert "tag-monitoring" in rows[POLL.digest] and "tag-monitoring" in rows[SHOW.digest]
    assert "tag-monitoring" not in rows[UPDATE.digest] + rows[POINT.digest]
    assert "49.0 %" in rows[POLL.digest] and "32.7 %" in rows[UPDATE.digest]  # 3.0 and 2.0 of 6.12 s
    assert "Monitoring reads: 70 executions, 3.05 s, 49.8 % of statement time in this range" in body
    assert "ranked with the rest" in body and 'name="monitoring" value="1" checked' in body


def test_a_bad_toggle_is_said_and_the_default_kept(admin_client):
    server = light_run()
    body = admin_client.get(f"/servers/{server.pk}/statements/", {**RANGE, "monitoring": "yes"}).content.decode()
    assert "monitoring=&#x27;yes&#x27; must be 1" in body
    assert ranked_digests(body) == [UPDATE.digest, POINT.digest]


def test_the_csv_labels_the_monitoring_reads_and_drops_no_row(admin_client):
    server = light_run()
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, **RANGE)
    head, body = rows[0], [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert head[-2:] == ["monitoring read", "share of all statement time (%)"]
    assert [r["digest"] for r in body] == [UPDATE.digest, POINT.digest, "*", POLL.digest, SHOW.digest]
    assert [r["rank"] for r in body] == ["1", "2", "", "", ""]
    assert [r["monitoring read"] for r in body] == ["", "", "", "yes", "yes"]
    update, poll = body[0], body[3]
    assert float(update["share of time (%)"]) == pytest.approx(100 * 2.0 / OTHERS_S)
    assert float(update["share of all statement time (%)"]) == pytest.approx(100 * 2.0 / ALL_S)
    assert update["executions"] == "1000" and float(update["total time (s)"]) == 2.0
    assert float(update["time per transaction (ms)"]) == pytest.approx(2e12 / TRANSACTIONS / 1e9)
    assert poll["share of time (%)"] == "" and float(poll["share of all statement time (%)"]) == pytest.approx(
        100 * 3.0 / ALL_S)
    assert sum(float(r["total time (s)"]) for r in body if r["monitoring read"]) == pytest.approx(MONITORING_S)


def test_the_csv_with_the_toggle_ranks_as_before_over_every_statement(admin_client):
    server = light_run()
    rows = get_csv(admin_client, "/export/statements.csv", server=server.pk, monitoring="1", **RANGE)
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert [r["digest"] for r in body] == [POLL.digest, UPDATE.digest, POINT.digest, SHOW.digest, "*"]
    for row, seconds in zip(body, (3.0, 2.0, 1.0, 0.05, 0.07), strict=True):
        assert float(row["share of time (%)"]) == pytest.approx(100 * seconds / ALL_S)


def test_the_run_report_and_compare_leave_them_out_and_the_csv_keeps_them(admin_client):
    runs = []
    for name, poll in (("a", POLL), ("b", replace(POLL, latency_ps=150 * MS))):  # the poll 3x slower on B
        server = light_run(name, (poll, SHOW, UPDATE, POINT))
        runs.append(Run.objects.create(name=f"run-{name}", server=server, started_at=START, ended_at=END))
    a, b = runs
    report = admin_client.get(f"/runs/{b.pk}/report/").content.decode()
    section = report.split('id="top-statements"')[1].split("</section>")[0]
    assert "sbtest1" in section and "CONCAT_WS" not in section and "Monitoring reads:" in section
    ranked = admin_client.get(f"/runs/{b.pk}/report/", {"monitoring": "1"}).content.decode()
    section = ranked.split('id="top-statements"')[1].split("</section>")[0]
    assert section.index("CONCAT_WS") < section.index("UPDATE") and "tag-monitoring" in section
    body = admin_client.get("/compare/", {"runs": f"{a.pk},{b.pk}"}).content.decode()
    changed = body.split('id="statements-changed"')[1]
    assert "CONCAT_WS" not in changed.split("</table>")[0]  # the poll changed most, but is a monitoring read
    top = body.split('<ol class="statements">')[1:]
    assert len(top) == 2 and not any("CONCAT_WS" in t.split("</ol>")[0] for t in top)
    assert "monitoring reads left out" in body
    rows = get_csv(admin_client, "/export/statements.csv", runs=f"{a.pk},{b.pk}")
    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["digest"] == POLL.digest and first["monitoring read"] == "yes"
    assert len(rows) == 1 + 5  # every digest and the rest row
