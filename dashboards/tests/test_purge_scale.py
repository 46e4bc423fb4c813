"""The purge chart is scaled to the history it draws, with the thresholds that apply to the server."""

import json
import re
from datetime import timedelta

import pytest

from alerts.builtin import ensure_builtin_rules
from alerts.models import Rule
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db
CLIMB = [1000 * i for i in range(45)]  # a read view held: 0 to 44,000 in 45 polls


def figure(client, server) -> dict:
    end = RECENT_T0 + timedelta(seconds=10 * len(CLIMB))
    page = client.get(f"/servers/{server.pk}/purge/", {"from": RECENT_T0.isoformat(), "to": end.isoformat()})
    found = re.search(r'<script id="figures" type="application/json">(.*?)</script>', page.content.decode(), re.S)
    assert found, "the page has no figures"
    return json.loads(found.group(1))["purge-chart"]


def test_a_climb_far_below_the_builtin_threshold_fills_the_chart(admin_client):
    server, other = make_server("db1"), make_server("db2")
    write_samples([Sample(server.pk, "history_length", RECENT_T0 + timedelta(seconds=10 * i), 10.0,
                          {"history_list_length": v}) for i, v in enumerate(CLIMB)]
                  + [Sample(server.pk, "variables", RECENT_T0, None, {"var:innodb_max_purge_lag": 0})])
    ensure_builtin_rules()  # "History length above 1,000,000", every server
    Rule.objects.create(name="lab", kind=Rule.THRESHOLD, metric="history_list_length", threshold=30_000,
                        server=server)
    Rule.objects.create(name="db2 only", kind=Rule.THRESHOLD, metric="history_list_length", threshold=20_000,
                        server=other)
    Rule.objects.create(name="off", kind=Rule.THRESHOLD, metric="history_list_length", threshold=10_000,
                        enabled=False)
    fig = figure(admin_client, server)
    assert fig["layout"]["yaxis"]["range"] == [0, pytest.approx(44_000 * 1.1)]  # the data, not 1,000,000
    lines = {t["name"]: t["y"] for t in fig["data"] if t.get("hoverinfo") == "skip"}
    assert lines == {"rule 'lab': above 30,000": [30_000, 30_000],
                     "rule 'History length above 1,000,000': above 1,000,000 (above this scale)": [1e6, 1e6]}
