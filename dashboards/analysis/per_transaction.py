"""Per transaction over an interval: time waited and host CPU burnt for each transaction.

Each over the seconds its source and TPS both cover (analysis/shared_span): the waits' delta over the wait
summary's polls that TPS covers, divided by the transactions of those same seconds, what an engineer computes
by hand from the two deltas; the same for the CPU. Each source has its own polls (node_exporter's are not the
server's; the wait summary may start later or fail for a while), so a sum of one divided by a sum of the other
would mix different seconds, and a rate of each over its own seconds would assume TPS the same in the seconds
only one covers. A CPU-bound server shows CPU per transaction growing, a lock-bound one waits per transaction.
The CPU is the whole host's (mysqld and everything else on it), from node_exporter.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from collectors.metric import TPS
from dashboards.analysis.shared_span import Shared

BUSY_SECONDS = "host.cpu.busy_seconds"
PS_PER_MS = 10**9
SAME_SECONDS = 1.0  # spans within a second of each other are the same (polls of one round, read ms apart)


@dataclass(frozen=True)
class Over:
    """One source's delta over the seconds it and TPS both cover, and what each covers in the interval."""

    amount: float  # the delta over the shared seconds (ps waited, CPU-seconds busy)
    shared: Shared
    own_seconds: float  # the source's polls' seconds in the interval
    tps_seconds: float  # TPS's

    def per_trx(self) -> float | None:
        return self.amount / self.shared.transactions if self.shared.transactions > 0 else None

    def differs(self) -> timedelta | None:
        """The shared seconds where they are not those of either source's polls in the interval; None otherwise.
        TPS's may cover fewer: a wait poll after a failed stretch began before the interval, and TPS's polls
        before it cover it, so the transactions shown (the interval's) are not what the figure divides by."""
        apart = max(self.own_seconds - self.shared.seconds, abs(self.tps_seconds - self.shared.seconds))
        return timedelta(seconds=self.shared.seconds) if apart >= SAME_SECONDS else None


@dataclass(frozen=True)
class PerTransaction:
    transactions: int | float  # TPS's deltas in the interval
    wait_ms: float | None  # milliseconds waited (the waits listed) per transaction, over the seconds both cover
    cpu_ms: float | None  # host CPU milliseconds (not idle, not iowait) per transaction; None without node_exporter
    wait_over: timedelta | None = None  # the seconds wait_ms is over, where not the wait summary's or TPS's own
    cpu_over: timedelta | None = None  # the same for cpu_ms and node_exporter
    event_ps: Mapping[str, float] = field(default_factory=dict)  # each listed wait's ps per transaction
    wait_seconds: float | None = None  # the seconds wait_ms is over (both sources cover), with it or not
    cpu_seconds: float | None = None
    waits_polled: float | None = None  # the seconds the wait summary's own polls cover in the interval
    # The transactions wait_ms and cpu_ms divide by: those of the seconds both sources cover (not `transactions`
    # where a source missed a poll).
    wait_transactions: float | None = None
    cpu_transactions: float | None = None


def per_transaction(sums: Mapping[str, tuple[int | float, float]], waited: Mapping[str, int] | None,
                    wait: Over | None, cpu: Over | None) -> PerTransaction:
    """sums: TPS's total and seconds in the interval; waited: each listed wait's ps over wait.shared's seconds
    (None or empty: no wait listed); wait, cpu: each source against TPS (None where it has no poll)."""
    trx, _seconds = sums.get(TPS, (0, 0.0))
    wait = wait if wait and waited and wait.per_trx() is not None else None
    cpu = cpu if cpu and cpu.per_trx() is not None else None
    if trx <= 0:
        return PerTransaction(trx, None, None)
    wait_ms = wait.amount / wait.shared.transactions / PS_PER_MS if wait else None
    events = {e: ps / wait.shared.transactions for e, ps in waited.items()} if wait and waited else {}
    return PerTransaction(trx, wait_ms, 1000.0 * cpu.amount / cpu.shared.transactions if cpu else None,
                          wait.differs() if wait else None, cpu.differs() if cpu else None, events,
                          wait.shared.seconds if wait else None, cpu.shared.seconds if cpu else None,
                          wait_transactions=wait.shared.transactions if wait else None,
                          cpu_transactions=cpu.shared.transactions if cpu else None)
