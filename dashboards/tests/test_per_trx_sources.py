"""Waits and host CPU per transaction are each over the seconds the source and TPS both cover.

TPS, the wait summary and node_exporter are polled at their own moments (here 5 s apart), so a sum of waits
over one set of polls divided by the transactions of another mixes different seconds: TPS is taken over the
very seconds of the other source's polls."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
WAIT = "wait.time_ps:wait/io/file/innodb/innodb_data_file"


@pytest.fixture
def run(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    tps = [Sample(server.pk, "global_status", T0 + timedelta(seconds=s), 10.0, {"tps": 1000}, frozenset({"tps"}))
           for s in range(100, 311, 10)]  # 100/s
    waits = [Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=s), 10.0, {WAIT: 28 * 10**11}, frozenset({WAIT}))
             for s in range(105, 316, 10)]  # 2.8 s per 10 s: 0.28 s waited per second
    cpu = [Sample(server.pk, "node_exporter", T0 + timedelta(seconds=s), 10.0, {"host.cpu.busy_seconds": 5.0},
                  frozenset({"host.cpu.busy_seconds"})) for s in range(105, 316, 10)]  # 0.5 CPU-s per second
    write_samples(tps + waits + cpu)
    return Run.objects.create(server=server, name="r", started_at=T0 + timedelta(seconds=100),
                              ended_at=T0 + timedelta(seconds=300), warmup_seconds=20)


def test_a_runs_per_transaction_figures_are_over_the_seconds_both_cover(client, run):
    rows = data.get_csv(client, "/export/compare.csv", runs=str(run.pk))
    header, row = rows[0], rows[1]
    waits = float(row[header.index("waits per transaction (ms, condition waits left out)")])
    cpu = float(row[header.index("host CPU per transaction (ms)")])
    assert waits == pytest.approx(0.28 / 100 * 1000)  # 2.8 ms; summing 17 wait polls over 18 TPS polls read 2.644
    assert cpu == pytest.approx(0.5 / 100 * 1000)  # 5.0 ms


def test_an_intervals_per_transaction_figures_are_over_the_seconds_both_cover(client, run):
    page = client.get(f"/servers/{run.server_id}/waits/", {"from": iso_utc(T0 + timedelta(seconds=120)),
                                                           "to": iso_utc(T0 + timedelta(seconds=300))})
    per_trx = page.context["per_trx"]
    assert per_trx.wait_ms == pytest.approx(2.8) and per_trx.cpu_ms == pytest.approx(5.0)
