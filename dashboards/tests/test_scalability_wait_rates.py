"""Waits per transaction on the Scalability page: a poll the wait summary lacks leaves its transactions out too.

A sweep at 1, 2 and 4 threads. Each step runs 60 s without warm-up, polled every 10 s. TPS is
100 per thread at every poll (1,000 x c transactions a poll). trx_sys_mutex waits c² ms every
10 s, but pfs_waits' counters were reset at the poll at +30 s, which carries no delta: its polls
inside the step cover 50 s, the TPS polls 60 s.

By hand: the wait rate is c² ms / 10 s = 0.1 c² ms/s; over 100 c TPS, c µs per transaction:
1, 2 and 4 µs. (Waits over transactions would mix 50 s of waits with 60 s of transactions:
5 c² ms / 6,000 c = 0.83 c µs.)
"""

from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, figures, get_csv, make_server
from testing.scalability import WAIT

pytestmark = pytest.mark.django_db
LEVELS = (1, 2, 4)
STEP, POLL, RESET_AT = 60, 10, 30
BY_HAND_US = [1.0, 2.0, 4.0]


def step_samples(server_id: int, start, c: int) -> list[Sample]:
    out = []
    for at in range(POLL, STEP + 1, POLL):
        ts = start + timedelta(seconds=at)
        out.append(Sample(server_id, "global_status", ts, float(POLL), {"tps": 1000 * c}, frozenset({"tps"})))
        if at == RESET_AT:
            out.append(Sample(server_id, "pfs_waits", ts, None, {}))  # reset: a new baseline, no delta
            continue
        waits = {f"wait.time_ps:{WAIT}": c * c * 10**9, f"wait.count:{WAIT}": 10}  # c² ms
        out.append(Sample(server_id, "pfs_waits", ts, float(POLL), waits, frozenset(waits)))
    return out


@pytest.fixture
def sweep():
    server = make_server("lab1")
    samples, start = [], RECENT_T0
    for c in LEVELS:
        Run.objects.create(name=f"reset x{c}", server=server, started_at=start,
                           ended_at=start + timedelta(seconds=STEP), concurrency=c, sweep="reset")
        samples += step_samples(server.pk, start, c)
        start += timedelta(seconds=STEP + 30)
    write_samples(samples)


def test_the_chart_divides_the_wait_rate_by_tps(admin_client, sweep):
    fig = figures(admin_client.get("/scalability/", {"sweep": "reset"}))["chart-scalability-waits"]
    (trace,) = [t for t in fig["data"] if t["name"].startswith(WAIT)]
    assert trace["x"] == list(LEVELS) and trace["y"] == pytest.approx(BY_HAND_US)


def test_the_csv_column_gives_the_same_figures(admin_client, sweep):
    header, *rows = get_csv(admin_client, "/export/scalability.csv", sweep="reset")
    column = header.index(f"{WAIT} (µs per transaction)")
    assert [float(r[column]) for r in rows] == pytest.approx(BY_HAND_US)
