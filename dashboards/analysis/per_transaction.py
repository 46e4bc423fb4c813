"""Per transaction over an interval: time waited and host CPU burnt for each transaction.

Both are exact sums of counter deltas over the interval (store.query.totals) divided by
the transactions of the same interval, what an engineer computes by hand from the samples:
a CPU-bound server shows CPU per transaction growing, a lock-bound one waits per transaction.
The CPU is the whole host's (mysqld and everything else on it), from node_exporter.
"""

from dataclasses import dataclass

from dashboards.analysis.topwaits import WaitRow

TPS = "tps"
BUSY_SECONDS = "host.cpu.busy_seconds"
PS_PER_MS = 10**9


@dataclass(frozen=True)
class PerTransaction:
    transactions: int | float
    wait_ms: float | None  # milliseconds waited (the waits listed) per transaction
    cpu_ms: float | None  # host CPU milliseconds (not idle, not iowait) per transaction; None without node_exporter


def per_transaction(totals: dict[str, int | float], waits: list[WaitRow]) -> PerTransaction:
    """totals: exact counter sums over the interval, with tps and host.cpu.busy_seconds when collected."""
    trx = totals.get(TPS) or 0
    if trx <= 0:
        return PerTransaction(trx, None, None)
    wait_ms = sum(w.time_ps for w in waits) / PS_PER_MS / trx if waits else None
    cpu = totals.get(BUSY_SECONDS)
    return PerTransaction(trx, wait_ms, None if cpu is None else 1000.0 * cpu / trx)
