"""The compare and scalability CSVs write a run's window as the pages say it, to the second, and the seconds its
polls cover without float noise: a run started through the API at 12:00:00.584902 was written
2026-...T12:00:00.584902Z and its polls' 10.1 + 10.2 + 10.3 s as 30.599999999999998."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
START = T0 + timedelta(seconds=0.584902)
INTERVALS = [10.1, 10.2, 10.3]  # polls read at 11.1, 21.3 and 31.6 s, each 100 TPS


@pytest.fixture
def run(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    at = T0 + timedelta(seconds=1)
    samples = [Sample(server.pk, "global_status", at, None, {"tps": 0}, frozenset({"tps"}))]
    for interval in INTERVALS:
        at += timedelta(seconds=interval)
        samples.append(Sample(server.pk, "global_status", at, interval, {"tps": 100 * interval}, frozenset({"tps"})))
    write_samples(samples)
    return Run.objects.create(name="api run", server=server, started_at=START, concurrency=1,
                              ended_at=START + timedelta(seconds=40))


def columns(rows: list[list[str]]) -> dict[str, str]:
    return dict(zip(rows[0], rows[1], strict=True))


def test_the_compare_csv_writes_whole_seconds_and_milliseconds(client, run):
    row = columns(data.get_csv(client, "/export/compare.csv", runs=str(run.pk)))
    assert row["from (UTC, after the warm-up)"] == iso_utc(T0)  # 12:00:00.584902 as the page says it: 12:00:00
    assert row["ended (UTC)"] == iso_utc(T0 + timedelta(seconds=40))
    assert row["duration (s)"] == "40"
    assert row["seconds covered by the TPS polls inside (s)"] == "30.6"  # 10.1 + 10.2 + 10.3
    assert float(row["avg TPS (/s)"]) == pytest.approx(100.0)


def test_the_scalability_csv_writes_whole_seconds_and_milliseconds(client, run):
    row = columns(data.get_csv(client, "/export/scalability.csv", runs=str(run.pk)))
    assert row["window start (UTC)"] == iso_utc(T0)
    assert row["window end (UTC)"] == iso_utc(T0 + timedelta(seconds=40))
    assert row["seconds covered"] == "30.6"
    assert row["transactions"] == "3060"  # 1010 + 1020 + 1030
