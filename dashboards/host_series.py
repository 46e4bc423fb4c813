"""What the host panels read from the store (node_exporter's host.* metrics), sized to the chart."""

from dataclasses import dataclass, field

from dashboards.analysis.points import ChartPoints
from dashboards.reads import RANK_POINTS, Empty, biggest
from dashboards.timerange import TimeRange
from store import query

BUSY = "host.cpu.busy_pct"
CPUS = "host.cpus"
# Every mode but idle, on the Host page and the stability panel alike: the stack's top is then 100 - idle. A
# mariadbd started under nice spends its CPU in "nice", and a VM loses cores to "steal": a user/system/iowait
# stack drew a host 86 % busy as 21 % (measured: 65 % nice, 18 % system, 1 % user).
ALL_MODES = ("user", "nice", "system", "iowait", "irq", "softirq", "steal")
UTIL, AWAIT = "host.disk.util_pct:", "host.disk.await_ms:"
LOAD = ("host.load1", "host.procs_running", "host.procs_blocked")
MEMORY = ("host.mem.used_bytes", "host.mem.cached_bytes", "host.mem.buffers_bytes", "host.mem.free_bytes")
SWAP = ("host.swap.in_pages", "host.swap.out_pages")
DISK_OPS = ("host.disk.reads:", "host.disk.writes:")
NET_BYTES = ("host.net.rx_bytes:", "host.net.tx_bytes:")
NET_ERRORS = ("host.net.rx_errors:", "host.net.tx_errors:")


def cpu_metric(mode: str) -> str:
    return f"host.cpu.{mode}_pct"


@dataclass
class CpuDisk:
    """The stability view's host panel: CPU by mode, and the busiest disk's await and utilisation."""

    cpu: list[tuple[str, ChartPoints]]
    device: str | None = None
    await_ms: ChartPoints = field(default_factory=Empty)
    util: ChartPoints = field(default_factory=Empty)

    @property
    def metrics(self) -> list[str]:
        """What the panel reads, with a page's other lines."""
        return [cpu_metric(mode) for mode in ALL_MODES] + self.disk_metrics()

    @property
    def drawn(self) -> list[str]:
        """What it draws, for its CSV: the modes the server's node_exporter gave (not every kernel has steal)."""
        return [cpu_metric(mode) for mode, _points in self.cpu] + self.disk_metrics()

    def disk_metrics(self) -> list[str]:
        return [AWAIT + self.device, UTIL + self.device] if self.device else []


def has_host_metrics(server_id: int) -> bool:
    return bool(query.metric_names(server_id, BUSY))


def busiest_device(server_id: int, tr: TimeRange) -> str | None:
    """The device with the highest mean utilisation over the range (ranked at a coarse resolution)."""
    coarse = query.series([server_id], [UTIL + "*"], tr.start, tr.end, max_points=RANK_POINTS)
    means = {s.metric: sum(v for v in s.values if v) / max(1, len(s.values)) for s in coarse}  # a gauge's
    top = biggest(means, UTIL, 1)
    return top[0][len(UTIL):] if top else None


def cpu_disk_of(device: str | None, found: dict) -> CpuDisk:
    """The stability view's host panel of the device chosen (busiest_device), from its lines (metric -> line)
    read with others over the range."""
    panel = CpuDisk([], device)
    panel.cpu = [(mode, found[cpu_metric(mode)]) for mode in ALL_MODES if cpu_metric(mode) in found]
    if device:
        panel.await_ms = found.get(AWAIT + device) or Empty()
        panel.util = found.get(UTIL + device) or Empty()
    return panel


@dataclass
class HostSeries:
    """Everything the Host page draws, grouped by chart row; metrics lists them all for the CSV."""

    rows: dict[str, list[tuple[str, ChartPoints]]]
    metrics: list[str]


HOST_ROWS = {
    "cpu": [cpu_metric(mode) for mode in ALL_MODES],
    "load": list(LOAD),
    "memory": list(MEMORY),
    "swap": list(SWAP),
    "disk_ops": [prefix + "*" for prefix in DISK_OPS],
    "disk_util": [UTIL + "*"],
    "disk_await": [AWAIT + "*"],
    "net": [prefix + "*" for prefix in NET_BYTES],
    "net_errors": [prefix + "*" for prefix in NET_ERRORS],
}


def host_series(server_id: int, tr: TimeRange, points: int) -> HostSeries:
    patterns = [p for row in HOST_ROWS.values() for p in row]
    found = query.series([server_id], patterns, tr.start, tr.end, max_points=points)
    found = [s for s in found if s.server_id == server_id]
    rows = {name: row_series(found, wanted) for name, wanted in HOST_ROWS.items()}
    return HostSeries(rows, [metric for row in rows.values() for metric, _ in row])


def row_series(found: list, patterns: list[str]) -> list[tuple[str, ChartPoints]]:
    """The series of one row, in the order of its patterns (CPU modes as listed), then by name."""
    ranked = [(index_of(s.metric, patterns), s.metric, s) for s in found]
    kept = [r for r in ranked if r[0] is not None]
    return [(metric, s) for _index, metric, s in sorted(kept, key=lambda r: r[:2])]


def index_of(metric: str, patterns: list[str]) -> int | None:
    for index, p in enumerate(patterns):
        if metric == p or (p.endswith("*") and metric.startswith(p[:-1])):
            return index
    return None
