"""Throughput figures of a stress run: per-interval TPS and the summary (avg, p5, p95)."""

from dataclasses import dataclass, field

from store.stats import percentile


@dataclass
class Summary:
    transactions: int = 0  # committed
    rollbacks: int = 0  # rolled back by the server (deadlock, lock wait timeout)
    elapsed: float = 0.0  # seconds the sessions ran
    interval_tps: list[float] = field(default_factory=list)
    status: str = "completed"  # completed | interrupted | failed
    error: str = ""

    @property
    def avg(self) -> float:
        return self.transactions / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def p5(self) -> float | None:
        return percentile(self.interval_tps, 5)

    @property
    def p95(self) -> float | None:
        return percentile(self.interval_tps, 95)

    def line(self) -> str:
        spread = (f"p5 {self.p5:.1f} p95 {self.p95:.1f}" if self.interval_tps
                  else "p5/p95 n/a (no full interval)")
        return (f"{self.transactions} transactions in {self.elapsed:.1f} s, "
                f"TPS avg {self.avg:.1f} {spread}, {self.rollbacks} rollbacks")
