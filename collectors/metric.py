"""What a source declares it writes, as mysqld_exporter declares a Desc beside its query.

A Metric is one stored name, or a family of names (its name ends in ':' and each member adds
what it is of: an event, a device, a channel). The alert catalog, the CSV units and the readers
take names, kinds and units from here; docs/metrics.md lists every one (a test checks it).
"""

from dataclasses import dataclass

COUNTER, GAUGE = "counter", "gauge"
PS = "ps"  # the unit of performance_schema's timers
PS_PER_S = 10**12
TPS = "tps"  # every transaction, by the best counter the server has on (collectors.transactions)


@dataclass(frozen=True)
class Metric:
    name: str  # the stored name, or a family's prefix ending in ':'
    kind: str  # COUNTER (stored as per-interval deltas) or GAUGE (as read)
    unit: str  # of one stored value: a gauge's level, a counter's delta
    help: str

    @classmethod
    def counter(cls, name: str, unit: str, help: str) -> "Metric":
        return cls(name, COUNTER, unit, help)

    @classmethod
    def gauge(cls, name: str, unit: str, help: str) -> "Metric":
        return cls(name, GAUGE, unit, help)

    @property
    def family(self) -> bool:
        return self.name.endswith(":")

    def matches(self, name: str) -> bool:
        return name.startswith(self.name) and len(name) > len(self.name) if self.family else name == self.name
