"""A server list where one server never collected a metric asked for is refused, as that server alone is."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db


def polls(server_id: int, values: dict) -> list[Sample]:
    """Three 10 s polls of global_status holding these counters' deltas."""
    return [Sample(server_id, "global_status", RECENT_T0 + timedelta(seconds=10 * k), 10.0, values,
                   frozenset(values)) for k in range(1, 4)]


def test_it_names_the_server_of_a_list_that_never_collected_a_metric(admin_client):
    db3 = make_server("db3")
    pfs = make_server("pfs")
    write_samples(polls(db3.pk, {"tps": 5000, "qps": 9000}))
    write_samples(polls(pfs.pk, {"qps": 7000}))  # no tps ever
    span = {"from": iso_utc(RECENT_T0), "to": iso_utc(RECENT_T0 + timedelta(seconds=30))}
    alone = admin_client.get("/export.csv", {"server": "pfs", "metrics": "tps", **span})
    assert alone.status_code == 400 and "tps: no such metric collected on pfs" in alone.content.decode()
    both = admin_client.get("/export.csv", {"server": f"{db3.pk},pfs", "metrics": "tps", **span})
    # before: 200, a db3 tps column alone, pfs silently left out
    assert both.status_code == 400
    assert "tps: no such metric collected on pfs" in both.content.decode()
    fine = admin_client.get("/export.csv", {"server": f"{db3.pk},pfs", "metrics": "qps", **span})
    assert fine.status_code == 200
    assert b"".join(fine.streaming_content).decode().splitlines()[0] == "time (UTC),db3 qps (/s),pfs qps (/s)"
