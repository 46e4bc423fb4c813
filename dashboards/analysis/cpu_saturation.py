"""Whether a sweep's host CPU was full: read before the law and the waits, which a full CPU also bends.

A host whose CPUs are all busy gives an added thread no core: TPS stops growing, the law
reads that as contention (σ), and every wait grows because a thread that holds a latch or
sits inside a handler call waits for a core there. So where the CPU is saturated at the
knee (or at the step past it, the one that gained too little), the knee is the CPU's.
The figure is node_exporter's, the whole host's: the load generator's CPU is in it when
it runs on the database host.
"""

from dataclasses import dataclass
from typing import Any

from dashboards.analysis.scalability import Curve, Level, measured

SATURATED_PCT = 90.0  # busy share of all the host's CPUs from which a level counts as CPU-bound
LOOPBACK = ("localhost", "::1")


def saturated(level: Level) -> bool:
    busy = level.cpu_busy_pct
    return busy is not None and busy >= SATURATED_PCT


@dataclass(frozen=True)
class CpuReading:
    measured: list[Level]  # the levels with a busy share
    since: Level | None  # the lowest level from which every level up was saturated
    knee_bound: bool  # saturated at the knee, or at the step past it: the knee is the CPU's
    turned: bool  # the curve has a knee below its top level
    configured: bool  # a server of the curve has a node_exporter URL
    local: bool  # every server is reached on this machine: a load started here ran on the host measured
    still_scaling: bool = False  # every step up gained (Curve.still_scaling): the knee is the top level

    @property
    def busy_from(self) -> list[float]:
        """The busy shares from `since` on (the range the sentence gives)."""
        return [lv.cpu_busy_pct for lv in self.measured
                if self.since and lv.concurrency >= self.since.concurrency and lv.cpu_busy_pct is not None]

    @property
    def busy_low(self) -> float | None:
        return min(self.busy_from, default=None)

    @property
    def busy_high(self) -> float | None:
        return max(self.busy_from, default=None)

    @property
    def scaled_while_busy(self) -> bool:
        """Saturated below the top level, yet every step up still gained (Curve.still_scaling): the busy
        share holds other work than the sweep's (a shared host), so it did not stop the threads added."""
        below_top = bool(self.measured) and self.since is not self.measured[-1]
        return self.since is not None and self.still_scaling and below_top

    @property
    def busiest(self) -> Level | None:
        return max(self.measured, key=lambda lv: lv.cpu_busy_pct or 0.0) if self.measured else None

    @property
    def cpus(self) -> list[int]:
        return sorted({round(lv.cpus) for lv in self.measured if lv.cpus})


def saturated_since(levels: list[Level]) -> Level | None:
    """The lowest level from which each level up is saturated; None when the top one is not."""
    since = None
    for level in reversed(levels):
        if not saturated(level):
            break
        since = level
    return since


def turned(curve: Curve) -> bool:
    """Whether scaling stopped inside the sweep: a knee below its top level with a TPS."""
    return curve.knee is not None and not curve.still_scaling


def at_or_past_knee(curve: Curve, since: Level) -> bool:
    """Whether saturation began at the knee or at the step past it (the level that gained too little)."""
    if curve.knee is None or not turned(curve):
        return False
    found = measured(curve.levels)  # the step past the knee is to the next level with a TPS
    past = found[next(i for i, lv in enumerate(found) if lv is curve.knee) + 1]
    return since.concurrency <= past.concurrency


def is_local(server: Any) -> bool:
    """Whether the server is reached on this machine (a servers.models.Server: analysis reads its fields)."""
    host = (server.host or "").strip().lower()
    return bool(server.socket) or host in LOOPBACK or host.startswith("127.")


def cpu_reading(curve: Curve) -> CpuReading:
    """The curve's host CPU, judged against its knee."""
    busy = [lv for lv in curve.levels if lv.cpu_busy_pct is not None]
    since = saturated_since(measured(curve.levels))
    servers = {lv.run.server_id: lv.run.server for lv in curve.levels}.values()
    return CpuReading(busy, since, since is not None and at_or_past_knee(curve, since), turned(curve),
                      any(s.node_exporter_url for s in servers), bool(servers) and all(map(is_local, servers)),
                      curve.still_scaling)
