"""node_exporter's answer to stored figures: percent of CPU time, disk await and utilisation, worked out by hand."""

import pytest

from collectors import delta
from collectors.http_fetch import Answer
from collectors.source import SourceError
from collectors.sources.node_exporter import MODES, collect

BOOT = 'node_boot_time_seconds 1700000000\n'


def exposition(cpu: dict[str, dict[str, float]], disks: dict[str, tuple], nets: dict[str, tuple],
               extra: str = "") -> str:
    """The text node_exporter serves, with HELP/TYPE lines and a family we do not keep (it is not parsed)."""
    lines = ["# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.",
             "# TYPE node_cpu_seconds_total counter"]
    for n, modes in cpu.items():
        lines += [f'node_cpu_seconds_total{{cpu="{n}",mode="{m}"}} {modes.get(m, 0.0)}' for m in MODES]
    fields = ("reads_completed_total", "writes_completed_total", "read_bytes_total", "written_bytes_total",
              "read_time_seconds_total", "write_time_seconds_total", "io_time_seconds_total")
    for dev, values in disks.items():
        lines += [f'node_disk_{f}{{device="{dev}"}} {v}' for f, v in zip(fields, values, strict=True)]
    for dev, (rx, tx) in nets.items():
        lines += [f'node_network_receive_packets_total{{device="{dev}"}} {rx}',
                  f'node_network_transmit_packets_total{{device="{dev}"}} {tx}',
                  f'node_network_receive_bytes_total{{device="{dev}"}} {rx * 100}']
    lines += ["node_load1 1.5", "node_memory_MemTotal_bytes 1000", "node_memory_MemAvailable_bytes 400",
              'node_filesystem_avail_bytes{device="/dev/vda",fstype="ext4",mountpoint="/"} 1e+09', extra]
    return BOOT + "\n".join(lines) + "\n"


def answer(text: str, content_type: str = "text/plain; version=0.0.4") -> Answer:
    return Answer("http://db1:9100/metrics", text, content_type)


FIRST = exposition(
    {"0": {"user": 50, "system": 20, "idle": 100, "iowait": 5}, "1": {"user": 40, "idle": 200, "iowait": 3}},
    {"sda": (1000, 500, 4096000, 2048000, 10.0, 5.0, 30.0), "sdb": (0, 0, 0, 0, 0, 0, 0)},
    {"eth0": (10, 20), "ifb0": (0, 0)})
# Two seconds later: cpu0 +6 user +2 system +1 idle +1 iowait; cpu1 +2 user +8 idle;
# sda +100 reads +50 writes, 0.3 s + 0.15 s waiting, busy 1.0 s.
SECOND = exposition(
    {"0": {"user": 56, "system": 22, "idle": 101, "iowait": 6}, "1": {"user": 42, "idle": 208, "iowait": 3}},
    {"sda": (1100, 550, 4505600, 2252800, 10.3, 5.15, 31.0), "sdb": (0, 0, 0, 0, 0, 0, 0)},
    {"eth0": (15, 26), "ifb0": (0, 0)})


def stored(first: str, second: str) -> delta.Delta:
    one, two = collect(answer(first)), collect(answer(second))
    _, snapshot = delta.compute(None, one, 1000.0, one.boot)
    change, _ = delta.compute(snapshot, two, 1002.0, two.boot)
    return change


def test_it_stores_cpu_time_as_percent_of_the_host_and_of_each_cpu():
    values = stored(FIRST, SECOND).values
    # Host: 20 CPU-seconds passed, 8 in user, 2 in system, 9 idle, 1 iowait.
    assert values["host.cpu.user_pct"] == pytest.approx(40.0)
    assert values["host.cpu.system_pct"] == pytest.approx(10.0)
    assert values["host.cpu.idle_pct"] == pytest.approx(45.0)
    assert values["host.cpu.iowait_pct"] == pytest.approx(5.0)
    assert values["host.cpu.busy_pct"] == pytest.approx(50.0)
    assert values["host.cpu.user_pct:cpu0"] == pytest.approx(60.0)
    assert values["host.cpu.busy_pct:cpu0"] == pytest.approx(80.0)
    assert values["host.cpu.user_pct:cpu1"] == pytest.approx(20.0)
    assert values["host.cpus"] == 2
    assert values["host.cpu.busy_seconds"] == pytest.approx(10.0)  # 8 s user + 2 s system, a counter's delta
    assert not any(name.startswith("host.cpu.seconds") for name in values)  # only the figures are stored


def test_it_stores_disk_rates_await_and_utilisation():
    change = stored(FIRST, SECOND)
    values = change.values
    assert change.interval == 2.0
    assert (values["host.disk.reads:sda"], values["host.disk.writes:sda"]) == (100, 50)
    assert values["host.disk.read_bytes:sda"] == 409600
    assert values["host.disk.await_ms:sda"] == pytest.approx(450.0 / 150)  # 0.45 s waited over 150 I/Os
    assert values["host.disk.util_pct:sda"] == pytest.approx(50.0)  # busy 1 s of 2
    assert {"host.disk.reads:sda", "host.net.rx_packets:eth0"} <= change.counters
    assert values["host.net.rx_packets:eth0"] == 5 and values["host.net.tx_packets:eth0"] == 6
    assert values["host.mem.used_bytes"] == 600 and values["host.load1"] == 1.5


def test_devices_and_interfaces_that_never_moved_are_not_stored():
    names = set(stored(FIRST, SECOND).values)
    assert not any(name.endswith((":sdb", ":ifb0")) for name in names)
    assert not any("filesystem" in name for name in names)


def test_a_counter_going_down_loses_only_its_own_series():
    # The kernel's iowait of a CPU may go down; the other series keep their interval.
    third = SECOND.replace('cpu="1",mode="iowait"} 3', 'cpu="1",mode="iowait"} 2').replace(
        'cpu="0",mode="user"} 56', 'cpu="0",mode="user"} 57').replace(
        'node_disk_reads_completed_total{device="sda"} 1100', 'node_disk_reads_completed_total{device="sda"} 1130')
    change = stored(SECOND, third)
    assert change.values["host.disk.reads:sda"] == 30 and change.interval == 2.0
    assert change.values["host.cpu.user_pct:cpu0"] == 100.0  # its only move: one second of user time
    assert "host.cpu.user_pct:cpu1" not in change.values  # no figure rather than a wrong one
    assert "host.cpu.user_pct" not in change.values  # the host's iowait sum went down with it


def test_a_reboot_gives_a_baseline_not_a_delta():
    rebooted = SECOND.replace(BOOT, "node_boot_time_seconds 1700009000\n")
    change = stored(FIRST, rebooted)
    assert change.interval is None and not change.counters and change.reset == delta.RESTARTED


@pytest.mark.parametrize("text, content_type, says", [
    ("<!DOCTYPE html><html><body>Grafana</body></html>", "text/html", "HTML page"),
    ("<html><body>Node Exporter</body></html>", "text/plain", "HTML page"),
    ("up 1\nsome_metric 2\n", "text/plain", "no node_cpu_seconds_total"),
    ('node_cpu_seconds_total{cpu="0",mode="user"} not-a-number\n', "text/plain", "not in the Prometheus text format"),
])
def test_an_answer_that_is_not_node_exporter_metrics_is_named(text, content_type, says):
    with pytest.raises(SourceError, match=says):
        collect(answer(text, content_type))


def test_a_collector_switched_off_is_said():
    reading = collect(answer(FIRST.replace("node_load1 1.5", "")))
    assert "loadavg" in reading.note and "--collector.loadavg" in reading.note
