"""The driver's own figures after the warm-up: its transactions and their response times.

Each session keeps its own Measured (no lock on the hot path) and the driver merges them
at the end. Response times go to a histogram of 1 % wide buckets on a log scale, so an
hours-long run holds a few hundred counters, not millions of timings; a percentile is
read as its bucket's geometric middle, within 0.5 % of the exact order statistic.
"""

import math
from collections import Counter
from dataclasses import dataclass, field

STEP = 1.01  # each bucket is 1 % wider than the one below
FLOOR = 1e-6  # seconds: the lower edge of bucket 0 (faster still counts in bucket 0)
LOG_STEP = math.log(STEP)


def bucket(seconds: float) -> int:
    return max(0, int(math.log(max(seconds, FLOOR) / FLOOR) / LOG_STEP))


def bucket_middle(index: int) -> float:
    return FLOOR * STEP ** (index + 0.5)


@dataclass
class Measured:
    """Transactions begun after the warm-up, committed or rolled back, and how long each took."""

    commits: int = 0
    rollbacks: int = 0
    seconds: float = 0.0  # the measured span: from the end of the warm-up to the end of the run
    total_latency: float = 0.0  # seconds, summed over every transaction counted
    histogram: Counter = field(default_factory=Counter)

    def record(self, latency: float, committed: bool) -> None:
        if committed:
            self.commits += 1
        else:
            self.rollbacks += 1
        self.total_latency += latency
        self.histogram[bucket(latency)] += 1

    def merge(self, other: "Measured") -> None:
        self.commits += other.commits
        self.rollbacks += other.rollbacks
        self.total_latency += other.total_latency
        self.histogram.update(other.histogram)

    @property
    def transactions(self) -> int:
        return self.commits + self.rollbacks

    @property
    def tps(self) -> float | None:
        return self.commits / self.seconds if self.seconds > 0 else None

    @property
    def latency_avg(self) -> float | None:
        return self.total_latency / self.transactions if self.transactions else None

    def latency_percentile(self, p: float) -> float | None:
        """The smallest bucket holding at least p % of the transactions (nearest rank), as seconds."""
        if not self.transactions:
            return None
        rank, seen = math.ceil(self.transactions * p / 100), 0
        for index in sorted(self.histogram):
            seen += self.histogram[index]
            if seen >= rank:
                return bucket_middle(index)
        return bucket_middle(max(self.histogram))

    def figures(self) -> dict:
        """What a run keeps (Run.client_figures): counts, the span, response times in milliseconds."""
        avg, p95 = self.latency_avg, self.latency_percentile(95)
        return {"tool": "stress", "transactions": self.commits, "errors": self.rollbacks,
                "seconds": round(self.seconds, 3), "tps": self.tps,
                "latency_avg_ms": None if avg is None else avg * 1000,
                "latency_p95_ms": None if p95 is None else p95 * 1000}
