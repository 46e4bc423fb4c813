"""Per transaction over an interval: time waited and host CPU burnt for each transaction.

Rate over rate: the waits' exact sum over the seconds their polls cover, divided by the
transactions over the seconds theirs cover (and the same for the CPU), what an engineer
computes by hand from the samples. Each source has its own polls (node_exporter's are not the
server's; a reset of one source drops a delta from it alone), so a sum of one divided by a sum
of the other would mix different seconds. A CPU-bound server shows CPU per transaction
growing, a lock-bound one waits per transaction. The CPU is the whole host's (mysqld and
everything else on it), from node_exporter.
"""

from dataclasses import dataclass

from collectors.metric import TPS
from dashboards.analysis.topwaits import WaitRow

BUSY_SECONDS = "host.cpu.busy_seconds"
PS_PER_MS = 10**9


@dataclass(frozen=True)
class PerTransaction:
    transactions: int | float
    wait_ms: float | None  # milliseconds waited (the waits listed) per transaction
    cpu_ms: float | None  # host CPU milliseconds (not idle, not iowait) per transaction; None without node_exporter


def per_transaction(sums: dict[str, tuple[int | float, float]], waits: list[WaitRow],
                    wait_seconds: float) -> PerTransaction:
    """sums: per counter, its exact total over the interval and the seconds its polls cover (tps, and
    host.cpu.busy_seconds when collected); waits: the waits to count; wait_seconds: what their polls cover."""
    trx, trx_seconds = sums.get(TPS, (0, 0.0))
    if trx <= 0 or not trx_seconds:
        return PerTransaction(trx, None, None)
    tps = trx / trx_seconds
    waited = sum(w.time_ps for w in waits) / PS_PER_MS
    wait_ms = waited / wait_seconds / tps if waits and wait_seconds else None
    busy, busy_seconds = sums.get(BUSY_SECONDS, (None, 0.0))
    cpu_ms = 1000.0 * busy / busy_seconds / tps if busy is not None and busy_seconds else None
    return PerTransaction(trx, wait_ms, cpu_ms)
