"""A hostile name in every CSV that writes one: one cell to a CSV reader, no formula where ';' splits the line."""

import csv
import io
from datetime import timedelta

import pytest

from servers.models import Annotation, Run
from testing.dashboards import TEN_MINUTES, make_server, write_run_data
from testing.statements import MS, Shape, write_reads

pytestmark = pytest.mark.django_db
HOSTILE = "a;=cmd|' /C calc'!A0"
NEUTRALISED = "a;'=cmd|' /C calc'!A0"  # the quote Excel reads as "text follows", after the ';'
START, END = TEN_MINUTES
RANGE = {"from": START.isoformat(), "to": END.isoformat()}


def download(client, url: str, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode()


def formulas(text: str) -> list[str]:
    """The cells a spreadsheet splitting at ';' would evaluate."""
    return [p for line in text.splitlines() for p in line.split(";") if p.startswith(("=", "+", "-", "@"))]


def test_every_csv_keeps_a_hostile_name_one_cell_and_no_formula(admin_client):
    server = make_server(HOSTILE, poll_interval=10, tags=[HOSTILE])
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10, shapes=(Shape("d-hostile", HOSTILE, 10, MS),))
    Run.objects.create(name=HOSTILE, server=server, started_at=START, ended_at=END)
    Annotation.objects.create(server=server, at=START + timedelta(seconds=30), text=HOSTILE)
    texts = {
        "fleet": download(admin_client, "/export/fleet.csv"),
        "runs": download(admin_client, "/export/runs.csv"),
        "annotations": download(admin_client, "/export/annotations.csv", server=server.pk, **RANGE),
        "statements": download(admin_client, "/export/statements.csv", server=server.pk, **RANGE),
    }
    for name, text in texts.items():
        assert formulas(text) == [], name
        cells = [c for row in csv.reader(io.StringIO(text, newline="")) for c in row]
        assert NEUTRALISED in cells, name
    assert next(csv.reader(io.StringIO(texts["fleet"].splitlines()[1])))[0] == NEUTRALISED  # the server, whole
