"""Known host readings for the host pages' tests: node_exporter polls whose figures are known by hand."""

from datetime import datetime, timedelta

from store.ingest import write_samples
from store.sample import Sample

STEP, POLLS = 10, 60
BUSY_PER_POLL = 8.0  # CPU-seconds busy per 10 s poll: 40 % of 2 CPUs


def user_pct(i: int) -> float:
    return 30.0 + i % 5


def host_polls(server_id: int, end: datetime) -> None:
    """POLLS node_exporter readings: vda busy (50 %), sdb nearly idle (5 %), 100 reads/s on vda, 2 GiB used."""
    start = end - timedelta(seconds=STEP * (POLLS - 1))
    samples = []
    for i in range(1, POLLS):
        counters = {"host.disk.reads:vda": 100 * STEP, "host.disk.reads:sdb": 3 * STEP,
                    "host.cpu.busy_seconds": BUSY_PER_POLL}
        gauges = {"host.cpu.user_pct": user_pct(i), "host.cpu.system_pct": 10.0, "host.cpu.iowait_pct": 2.5,
                  "host.cpu.idle_pct": 57.5 - i % 5, "host.cpu.busy_pct": 40.0 + i % 5, "host.cpus": 2,
                  "host.disk.util_pct:vda": 50.0, "host.disk.await_ms:vda": 3.0,
                  "host.disk.util_pct:sdb": 5.0, "host.disk.await_ms:sdb": 9.0,
                  "host.mem.used_bytes": 2 * 1024**3, "host.load1": 1.5}
        samples.append(Sample(server_id, "node_exporter", start + timedelta(seconds=STEP * i), float(STEP),
                              {**gauges, **counters}, frozenset(counters)))
    write_samples(samples)
