"""Sweeps whose every poll reads a level's TPS, queries and waits per transaction exactly: the Scalability
page's reading (efficiency, the law's fit, where the bottleneck moves) checked against figures made by hand."""

from datetime import datetime, timedelta

from servers.models import Run, Server
from store.ingest import write_samples
from store.sample import Sample
from testing.scalability import GAP, POLL, STEP, WARMUP, WARMUP_TPS


def law(n: float, lam: float, sigma: float, kappa: float) -> float:
    """The Universal Scalability Law's TPS at n threads."""
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def write_exact_sweep(server: Server, name: str, start: datetime, tps_by_level: dict[int, float],
                      us_per_trx: dict[str, dict[int, float]], queries_per_trx: float = 20) -> list[Run]:
    """A sweep whose every poll reads the level's TPS exactly (no wobble), each wait `us_per_trx[event][level]`
    µs per transaction and `queries_per_trx` queries per transaction; the first poll of each step (the
    warm-up's) reads WARMUP_TPS and no waits."""
    runs, samples = [], []
    for c, tps in tps_by_level.items():
        runs.append(Run.objects.create(name=f"{name} x{c}", server=server, started_at=start,
                                       ended_at=start + timedelta(seconds=STEP), warmup_seconds=WARMUP,
                                       concurrency=c, sweep=name))
        for j in range(1, STEP // POLL + 1):
            ts, rate = start + timedelta(seconds=POLL * j), WARMUP_TPS if j == 1 else tps
            status: dict[str, int | float] = {"tps": rate * POLL, "qps": rate * POLL * queries_per_trx}
            samples.append(Sample(server.pk, "global_status", ts, float(POLL), status, frozenset(status)))
            waits: dict[str, int | float] = {f"wait.time_ps:{event}": round(per[c] * 1e6 * rate * POLL) if j > 1 else 0
                     for event, per in us_per_trx.items()}
            samples.append(Sample(server.pk, "pfs_waits", ts, float(POLL), waits, frozenset(waits)))
        start += timedelta(seconds=STEP + GAP)
    write_samples(samples)
    return runs
