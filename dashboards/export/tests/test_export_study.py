"""The study CSVs: every level of every curve of the Scalability page, and the runs table."""

import csv
import io

import pytest

from servers.models import Run
from testing.dashboards import RECENT_T0, make_server
from testing.scalability import BASELINE, NEIGHBORS_OFF, by_hand, two_sweeps

pytestmark = pytest.mark.django_db


@pytest.fixture
def sweeps():
    return two_sweeps(make_server("lab1"), RECENT_T0)


def rows_of(response) -> list[dict]:
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_csv_has_every_level_of_every_curve(client, admin_user, sweeps):
    client.force_login(admin_user)
    rows = rows_of(client.get("/export/scalability.csv", {"sweep": ["baseline", "no neighbors"]}))
    assert [(r["curve"], r["threads"]) for r in rows] == [
        ("baseline", "1"), ("baseline", "2"), ("baseline", "4"),
        ("no neighbors", "1"), ("no neighbors", "2"), ("no neighbors", "4")]
    assert float(rows[2]["avg TPS (/s)"]) == pytest.approx(by_hand(2500)[0])
    assert [r["knee"] for r in rows] == ["", "knee", "", "", "", "still scaling"]  # no neighbors gains 95 % to 4
    assert rows[0]["samples"] == "5"
    assert "innodb_flush_neighbors: 1 -> 0" in rows[3]["server variables differing from first curve"]
    assert float(rows[5]["TPS ratio to first curve"]) == pytest.approx(by_hand(4200)[0] / by_hand(2500)[0])


def test_the_runs_csv_is_the_runs_table(client, admin_user, sweeps):
    baseline, neighbors_off = sweeps
    client.force_login(admin_user)
    Run.objects.filter(pk=baseline[0].pk).update(label="=HYPERLINK(\"http://x\")")
    rows = rows_of(client.get("/export/runs.csv", {"sort": "-tps", "server": baseline[0].server_id}))
    expected = {r.pk: by_hand(b)[0] for runs, levels in zip(sweeps, (BASELINE, NEIGHBORS_OFF), strict=True)
                for r, b in zip(runs, levels.values(), strict=True)}
    assert [int(r["run id"]) for r in rows] == sorted(expected, key=expected.get, reverse=True)
    assert [float(r["avg TPS after warm-up (/s)"]) for r in rows] == pytest.approx(sorted(expected.values())[::-1])
    assert next(r for r in rows if int(r["run id"]) == baseline[0].pk)["label"].startswith("'=")  # no formula
    assert client.get("/export/runs.csv", {"server": "lab1"}).status_code == 400
