"""Waits and host CPU per transaction on the Scalability page over the polls both sources cover.

A sweep at 1 and 2 threads, each step 61 s with a 10 s warm-up, polled every 10 s: the polls at +20..+60 s lie
inside its window. TPS is 1,000 x c a poll, but 1,600 x c at +30 s, the poll where the wait summary was reset
(no delta) and node_exporter has none. trx_sys_mutex waits c² ms and the host burns 2 CPU-seconds a poll; the
wait summary is read 4 ms after TPS, node_exporter 30 ms after.

By hand, over the polls both cover (+20, +40, +50, +60): waits 4 c² ms over 4,000 c transactions = c µs;
CPU 8 s over 4,000 c = 2 / c ms (node_exporter's poll at +20 s also covers 30 ms of TPS's busier poll: 4,001.8 c,
1.9991 / c ms). Each rate over its own seconds read (4 c² ms / 40 s) / (5,600 c / 50 s) = 0.893 c µs and
(8 s / 40 s) / (5,600 c / 50 s) = 1.786 / c ms.
"""

from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, get_csv, make_server
from testing.scalability import WAIT

pytestmark = pytest.mark.django_db
LEVELS = (1, 2)
STEP, POLL, RESET_AT = 60, 10, 30


def step_samples(server_id: int, start, c: int) -> list[Sample]:
    out = []
    for at in range(POLL, STEP + 1, POLL):
        ts = start + timedelta(seconds=at)
        tps = 1600 * c if at == RESET_AT else 1000 * c
        out.append(Sample(server_id, "global_status", ts, float(POLL), {"tps": tps}, frozenset({"tps"})))
        if at == RESET_AT:
            out.append(Sample(server_id, "pfs_waits", ts, None, {}))  # reset: a new baseline, no delta
            continue
        waits = {f"wait.time_ps:{WAIT}": c * c * 10**9, f"wait.count:{WAIT}": 10}  # c² ms
        out.append(Sample(server_id, "pfs_waits", ts + timedelta(milliseconds=4), float(POLL), waits,
                          frozenset(waits)))
        out.append(Sample(server_id, "node_exporter", ts + timedelta(milliseconds=30), float(POLL),
                          {"host.cpu.busy_seconds": 2.0}, frozenset({"host.cpu.busy_seconds"})))
    return out


@pytest.fixture
def sweep():
    server = make_server("lab1", node_exporter_url="http://127.0.0.1:9100/metrics")
    samples, start = [], RECENT_T0
    for c in LEVELS:
        Run.objects.create(name=f"reset x{c}", server=server, started_at=start, warmup_seconds=10,
                           ended_at=start + timedelta(seconds=STEP + 1), concurrency=c, sweep="reset")
        samples += step_samples(server.pk, start, c)
        start += timedelta(seconds=STEP + 30)
    write_samples(samples)


def test_the_csv_gives_waits_and_cpu_per_transaction_over_the_polls_both_cover(admin_client, sweep):
    header, *rows = get_csv(admin_client, "/export/scalability.csv", sweep="reset")
    waits, cpu = header.index(f"{WAIT} (µs per transaction)"), header.index("host CPU per transaction (ms)")
    assert [float(r[waits]) for r in rows] == pytest.approx([1.0, 2.0], rel=1e-4)
    assert [float(r[cpu]) for r in rows] == pytest.approx([2.0, 1.0], rel=1e-3)
