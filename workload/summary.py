"""Throughput figures of a stress run: per-interval TPS and the summary (avg, p5, p95), and its latencies."""

from dataclasses import dataclass, field

from store.stats import percentile
from workload.measured import Measured


@dataclass
class Summary:
    transactions: int = 0  # committed
    rollbacks: int = 0  # rolled back by the server (deadlock, lock wait timeout)
    elapsed: float = 0.0  # seconds the sessions ran
    interval_tps: list[float] = field(default_factory=list)
    status: str = "completed"  # completed | interrupted | failed
    error: str = ""
    measured: Measured | None = None  # the driver's own figures after the warm-up
    latencies: list[float] = field(default_factory=list)  # seconds, each committed transaction's, sorted
    stalls: int = 0  # global read locks taken (--stall-every)

    def latency_ms(self, pct: float) -> float | None:
        """The pct-th percentile of the committed transactions' latencies, in ms, measured by the driver."""
        found = percentile(self.latencies, pct)
        return None if found is None else found * 1000

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
        latency = (f"latency ms p50 {self.latency_ms(50):.2f} p95 {self.latency_ms(95):.2f} "
                   f"p99 {self.latency_ms(99):.2f} max {self.latencies[-1] * 1000:.2f}" if self.latencies
                   else "latency n/a")
        stalls = f", {self.stalls} stalls" if self.stalls else ""
        return (f"{self.transactions} transactions in {self.elapsed:.1f} s, "
                f"TPS avg {self.avg:.1f} {spread}, {latency}, {self.rollbacks} rollbacks{stalls}"
                + self.measured_line())

    def measured_line(self) -> str:
        """After the warm-up: the driver's TPS and response times, as the scalability page reads them."""
        m = self.measured
        avg, p95 = (m.latency_avg, m.latency_percentile(95)) if m else (None, None)
        if m is None or m.tps is None or avg is None or p95 is None:
            return ""
        return (f"; after warm-up: {m.commits} in {m.seconds:.1f} s, TPS {m.tps:.1f}, "
                f"response avg {avg * 1000:.2f} ms p95 {p95 * 1000:.2f} ms")
