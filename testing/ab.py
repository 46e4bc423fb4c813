"""Runs whose average TPS is known by construction, for the A/B comparison's tests."""

from datetime import datetime, timedelta

from servers.models import Run, Server
from store.ingest import write_samples
from store.sample import Sample

POLL, POLLS, GAP = 10, 6, 60  # seconds between polls, polls per run, seconds between runs


def write_runs(server: Server, name: str, start: datetime, tps: list[float], label: str = "") -> list[Run]:
    """One run per TPS given, back to back, every poll inside it reading exactly that TPS."""
    runs, samples = [], []
    for k, rate in enumerate(tps):
        begin = start + timedelta(seconds=k * (POLL * POLLS + GAP))
        runs.append(Run.objects.create(name=f"{name} {k + 1}", server=server, started_at=begin,
                                       ended_at=begin + timedelta(seconds=POLL * POLLS), label=label))
        for j in range(1, POLLS + 1):
            values = {"tps": rate * POLL}
            samples.append(Sample(server.pk, "global_status", begin + timedelta(seconds=POLL * j), float(POLL),
                                  values, frozenset(values)))
    write_samples(samples)
    return runs
