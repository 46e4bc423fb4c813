# GET <node_exporter URL>?collect[]=cpu&collect[]=loadavg&...: the host's CPU, load, memory, swap, disks and network.
"""Host statistics from Prometheus node_exporter, parsed with prometheus-client's text parser.

Only the families below are kept, and only their sample lines reach the parser: a
node_exporter exposes ~1,000 series and parsing them all would cost the collector
more than every SQL source together. The request names the collectors it needs
(collect[]), so the host's agent gathers nothing else; an agent that refuses the
filter (a collector switched off) is read whole, and what is missing is said.

CPU time, disk await and utilisation are ratios of two deltas of the same interval,
so they are computed after the delta engine (Reading.derive) and stored as percent /
milliseconds; the seconds counters they come from are kept only in the snapshot.
"""

from collections import defaultdict
from functools import partial

from prometheus_client.parser import text_string_to_metric_families

from collectors.connection import ServerInfo
from collectors.http_fetch import Answer
from collectors.metric import Metric
from collectors.pool import Target
from collectors.source import Reading, Source, SourceError

NAME = "node_exporter"
COLLECTORS = ("cpu", "loadavg", "stat", "meminfo", "vmstat", "diskstats", "netdev")
MODES = ("user", "nice", "system", "iowait", "irq", "softirq", "steal", "idle")

CPU = "node_cpu_seconds_total"
BUSY_SECONDS = "host.cpu.busy_seconds"  # CPU-seconds not idle nor iowait, summed over CPUs: CPU per transaction
IDLE_MODES = ("idle", "iowait")
BOOT = "node_boot_time_seconds"
GAUGES = {"node_load1": "host.load1", "node_load5": "host.load5", "node_load15": "host.load15",
          "node_procs_running": "host.procs_running", "node_procs_blocked": "host.procs_blocked"}
COUNTERS = {"node_context_switches_total": "host.context_switches", "node_intr_total": "host.interrupts",
            "node_vmstat_pswpin": "host.swap.in_pages", "node_vmstat_pswpout": "host.swap.out_pages"}
MEMORY = {f"node_memory_{field}_bytes": field for field in
          ("MemTotal", "MemFree", "MemAvailable", "Cached", "Buffers", "SwapTotal", "SwapFree")}
DISK = {"node_disk_reads_completed_total": "reads", "node_disk_writes_completed_total": "writes",
        "node_disk_read_bytes_total": "read_bytes", "node_disk_written_bytes_total": "written_bytes",
        "node_disk_read_time_seconds_total": "read_time", "node_disk_write_time_seconds_total": "write_time",
        "node_disk_io_time_seconds_total": "io_time"}
NET = {"node_network_receive_bytes_total": "rx_bytes", "node_network_transmit_bytes_total": "tx_bytes",
       "node_network_receive_packets_total": "rx_packets", "node_network_transmit_packets_total": "tx_packets",
       "node_network_receive_errs_total": "rx_errors", "node_network_transmit_errs_total": "tx_errors"}
DISK_SECONDS = ("read_time", "write_time", "io_time")  # feed await and utilisation, not stored themselves
KEPT = (CPU, BOOT, *GAUGES, *COUNTERS, *MEMORY, *DISK, *NET)
KEPT_NAMES = frozenset(KEPT)
MEMORY_STORED = ("total", "free", "available", "cached", "buffers", "used")
DISK_STORED = ("reads", "writes", "read_bytes", "written_bytes", "await_ms", "util_pct")
# What a missing family says about the agent: the collector that is off.
COLLECTOR_OF = {"node_load1": "loadavg", "node_context_switches_total": "stat", "node_memory_MemTotal_bytes": "meminfo",
                "node_vmstat_pswpin": "vmstat", "node_disk_reads_completed_total": "diskstats",
                "node_network_receive_bytes_total": "netdev"}


def endpoints(target: Target) -> tuple[str, ...]:
    return endpoints_of(target.node_exporter_url.strip())


def endpoints_of(url: str) -> tuple[str, ...]:
    """The URL asking for our collectors only, then the plain URL (for an agent that refuses the filter)."""
    if not url:
        return ()
    query = "&".join(f"collect[]={name}" for name in COLLECTORS)
    return (f"{url}{'&' if '?' in url else '?'}{query}", url)


def kept_lines(text: str) -> str:
    """The sample lines of the kept families: a line starts with its name, then "{" or " " (HELP/TYPE not needed).

    One set look-up per line: matching ~100 prefixes per line cost a tenth of a scrape's CPU.
    """
    return "\n".join(line for line in text.split("\n")
                     if line[:1] != "#" and line.split("{", 1)[0].split(" ", 1)[0] in KEPT_NAMES) + "\n"


def read_samples(answer: Answer) -> dict[str, list[tuple[dict, float]]]:
    """Sample name -> [(labels, value)] of the kept families; a clear error for an answer that is not metrics."""
    head = answer.text.lstrip()[:200].lower()
    if "html" in answer.content_type or head.startswith(("<!doctype", "<html", "<")):
        raise SourceError(f"{answer.url} answered an HTML page, not Prometheus metrics: "
                          "give node_exporter's metrics URL, e.g. http://host:9100/metrics")
    by_name: dict[str, list[tuple[dict, float]]] = defaultdict(list)
    try:
        for family in text_string_to_metric_families(kept_lines(answer.text)):
            for sample in family.samples:
                by_name[sample.name].append((sample.labels, sample.value))
    except ValueError as exc:
        raise SourceError(f"{answer.url}: the answer is not in the Prometheus text format ({exc})") from exc
    if CPU not in by_name:
        raise SourceError(f"{answer.url}: the answer has no {CPU} series: is this a node_exporter, "
                          "with its cpu collector on (--collector.cpu)?")
    return by_name


def cpu_values(rows: list[tuple[dict, float]], values: dict) -> list[str]:
    """Seconds per mode, per CPU and summed over CPUs; the CPU names (cpu0, cpu1, ...)."""
    cpus = set()
    for labels, seconds in rows:
        mode, cpu = labels.get("mode"), f"cpu{labels.get('cpu', '')}"
        if mode not in MODES:
            continue
        cpus.add(cpu)
        values[f"host.cpu.seconds.{mode}:{cpu}"] = seconds
        total = f"host.cpu.seconds.{mode}"
        values[total] = values.get(total, 0.0) + seconds
    return sorted(cpus, key=lambda name: int(name[3:]) if name[3:].isdigit() else 0)


def device_values(by_name: dict, fields: dict[str, str], moved: tuple[str, str], prefix: str,
                  values: dict) -> list[str]:
    """Per-device counters, leaving out devices whose moved counters are still zero since boot."""
    devices: dict[str, dict[str, float]] = defaultdict(dict)
    for sample_name, field in fields.items():
        for labels, value in by_name.get(sample_name, ()):
            devices[labels.get("device", "")][field] = value
    kept = [name for name, got in devices.items() if any(got.get(field) for field in moved)]
    for device in kept:
        for field, value in devices[device].items():
            values[f"{prefix}.{field}:{device}"] = value if field in DISK_SECONDS else int(value)
    return sorted(kept)


def memory_values(by_name: dict, values: dict) -> None:
    mem = {field: int(by_name[name][0][1]) for name, field in MEMORY.items() if by_name.get(name)}
    for field, name in (("MemTotal", "total"), ("MemFree", "free"), ("MemAvailable", "available"),
                        ("Cached", "cached"), ("Buffers", "buffers")):
        if field in mem:
            values[f"host.mem.{name}_bytes"] = mem[field]
    if "MemTotal" in mem and "MemAvailable" in mem:  # what free(1) (procps 4) calls used
        values["host.mem.used_bytes"] = mem["MemTotal"] - mem["MemAvailable"]
    if "SwapTotal" in mem and "SwapFree" in mem:
        values["host.swap.used_bytes"] = mem["SwapTotal"] - mem["SwapFree"]


def derive(cpus: list[str], disks: list[str], deltas: dict[str, int | float], interval: float) -> dict[str, float]:
    """Percent of CPU time per mode (of the host and of each CPU), disk await and utilisation."""
    out: dict[str, float] = {}
    for suffix in ("", *(f":{cpu}" for cpu in cpus)):
        out.update(cpu_percent(deltas, suffix))
    for disk in disks:
        out.update(disk_figures(deltas, disk, interval))
    return out


def cpu_percent(deltas: dict, suffix: str) -> dict[str, float]:
    """mode_pct = seconds in the mode / seconds in all modes, as mpstat computes it; busy = not idle nor iowait."""
    seconds = [deltas.get(f"host.cpu.seconds.{mode}{suffix}") for mode in MODES]
    total = sum(s for s in seconds if s is not None)
    if None in seconds or total <= 0:  # a mode went down (the kernel's iowait quirk): no figure this interval
        return {}
    pct = {f"host.cpu.{mode}_pct{suffix}": 100.0 * s / total for mode, s in zip(MODES, seconds, strict=True)
           if s is not None}
    pct[f"host.cpu.busy_pct{suffix}"] = 100.0 - sum(pct[f"host.cpu.{mode}_pct{suffix}"] for mode in IDLE_MODES)
    return pct


def disk_figures(deltas: dict, disk: str, interval: float) -> dict[str, float]:
    """await = time spent on the interval's I/Os / their number (iostat's r_await and w_await as one);
    util = the share of the interval the device was busy (iostat's %util)."""
    found = {field: deltas.get(f"host.disk.{field}:{disk}") for field in ("reads", "writes", *DISK_SECONDS)}
    got = {field: value for field, value in found.items() if value is not None}
    if len(got) < len(found) or interval <= 0:
        return {}
    ops = got["reads"] + got["writes"]
    wait = got["read_time"] + got["write_time"]
    return {f"host.disk.await_ms:{disk}": 1000.0 * wait / ops if ops else 0.0,
            f"host.disk.util_pct:{disk}": min(100.0, 100.0 * got["io_time"] / interval)}


def missing_note(by_name: dict) -> str:
    missing = [collector for name, collector in COLLECTOR_OF.items() if name not in by_name]
    if not missing:
        return ""
    return ("not in node_exporter's answer: " + ", ".join(missing) +
            " (switch those collectors on: " + " ".join(f"--collector.{c}" for c in missing) + ")")


def collect(answer: Answer, info: ServerInfo | None = None) -> Reading:
    by_name = read_samples(answer)
    values: dict[str, int | float] = {}
    cpus = cpu_values(by_name[CPU], values)
    values["host.cpus"] = len(cpus)
    values[BUSY_SECONDS] = sum(values[f"host.cpu.seconds.{mode}"] for mode in MODES
                               if mode not in IDLE_MODES and f"host.cpu.seconds.{mode}" in values)
    disks = device_values(by_name, DISK, ("reads", "writes"), "host.disk", values)
    device_values(by_name, NET, ("rx_packets", "tx_packets"), "host.net", values)
    for sample_name, metric in GAUGES.items():
        if by_name.get(sample_name):
            values[metric] = by_name[sample_name][0][1]
    for sample_name, metric in COUNTERS.items():
        if by_name.get(sample_name):
            values[metric] = int(by_name[sample_name][0][1])
    memory_values(by_name, values)
    counters = frozenset(n for n in values if n.startswith(("host.cpu.seconds.", "host.disk.", "host.net."))
                         or n in COUNTERS.values() or n == BUSY_SECONDS)
    unstored = frozenset(n for n in counters if n.startswith("host.cpu.seconds.")
                         or n.partition(":")[0].rpartition(".")[2] in DISK_SECONDS)
    boot = by_name[BOOT][0][1] if by_name.get(BOOT) else None
    return Reading(values, counters, note=missing_note(by_name), boot=boot,
                   derive=partial(derive, cpus, disks), unstored=unstored)


def host_metrics() -> tuple[Metric, ...]:
    """The names above as declarations: units from their names, as docs/metrics.md lists them."""
    per_cpu = [(f"host.cpu.{mode}_pct", f"share of the interval's CPU time in {mode}") for mode in MODES]
    per_cpu.append(("host.cpu.busy_pct", "100 - idle - iowait"))
    cpu = [Metric.gauge(n + suffix, "%", h) for n, h in per_cpu for suffix in ("", ":")]
    fixed = [Metric.gauge("host.cpus", "CPUs", "online CPUs"),
             Metric.counter(BUSY_SECONDS, "CPU-seconds", "CPU time not idle nor iowait, summed over CPUs"),
             *(Metric.gauge(n, "processes", "load average or run queue") for n in GAUGES.values()),
             *(Metric.counter(n, "pages" if "swap" in n else "events", "from /proc/stat and vmstat")
               for n in COUNTERS.values()),
             *(Metric.gauge(f"host.mem.{n}_bytes", "bytes", "from /proc/meminfo") for n in MEMORY_STORED),
             Metric.gauge("host.swap.used_bytes", "bytes", "swap total minus free")]
    disk = [Metric.counter("host.disk.reads:", "reads", "reads completed"),
            Metric.counter("host.disk.writes:", "writes", "writes completed"),
            Metric.counter("host.disk.read_bytes:", "bytes", "bytes read"),
            Metric.counter("host.disk.written_bytes:", "bytes", "bytes written"),
            Metric.gauge("host.disk.await_ms:", "ms", "time an I/O of the interval spent queued and served"),
            Metric.gauge("host.disk.util_pct:", "%", "share of the interval the device was busy")]
    net = [Metric.counter(f"host.net.{n}:", "packets" if "packets" in n else "bytes" if "bytes" in n else "errors",
                          "per network interface") for n in NET.values()]
    return (*cpu, *fixed, *disk, *net)


METRICS = host_metrics()


SOURCE = Source(
    name=NAME,
    help="the host's node_exporter (server's node_exporter URL): host.cpu.<mode>_pct, host.load1, host.mem.*, "
         "host.disk.<field>:<device>, host.net.<field>:<interface>",
    collect=collect,
    metrics=METRICS,
    kind="http",
    endpoints=endpoints,
)
