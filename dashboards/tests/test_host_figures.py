"""The host charts: an outage breaks the stacked CPU instead of drawing it at 0 %, memory in MiB."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.figures.host import cpu_disk_figure, host_figure
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import Pts, every, figures, make_server

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def cpu_traces_of(fig: dict) -> list[dict]:
    return [t for t in fig["data"] if t["name"].startswith("CPU ")]


def test_a_hole_splits_the_cpu_stack_in_two():
    """user 30 % and system 10 % at 4 polls, a hole after the second: two stacks of two polls, no zero."""
    user = every(10, [30.0, 30.0, None, 30.0, 30.0])
    system = every(10, [10.0, 10.0, None, 10.0, 10.0])
    fig = cpu_disk_figure([("user", user), ("system", system)], None, Pts(), Pts())
    drawn = [(t["name"], t["stackgroup"], t["y"], t["showlegend"]) for t in cpu_traces_of(fig)]
    assert drawn == [("CPU user", "cpu1-0", [30.0, 30.0], True), ("CPU user", "cpu1-1", [30.0, 30.0], False),
                     ("CPU system", "cpu1-0", [10.0, 10.0], True), ("CPU system", "cpu1-1", [10.0, 10.0], False)]
    ms = [int((T0 + timedelta(seconds=s)).timestamp() * 1000) for s in (0, 10, 30, 40)]
    assert [t["x"] for t in cpu_traces_of(fig)[:2]] == [ms[:2], ms[2:]]


def test_the_host_page_breaks_the_cpu_stack_at_holes():
    fig = host_figure({"cpu": [("host.cpu.user_pct", every(10, [50.0, None, 40.0]))]})
    assert [(t["stackgroup"], t["y"]) for t in cpu_traces_of(fig)] == [("cpu1-0", [50.0]), ("cpu1-1", [40.0])]


@pytest.mark.django_db
def test_memory_is_drawn_in_mib(admin_client):
    """2 GiB used: 2 * 1024 MiB, under a MiB title."""
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=2)
    write_samples([Sample(server.pk, "node_exporter", end - timedelta(seconds=10 * i), 10.0,
                          {"host.mem.used_bytes": 2 * 1024**3}) for i in range(5)])
    fig = figures(admin_client.get(f"/servers/{server.pk}/host/?range=1h"))["host-page-chart"]
    assert next(t for t in fig["data"] if t["name"] == "mem.used_bytes")["y"] == [2048.0] * 5
    assert "<b>Memory (MiB)</b>" in [a["text"] for a in fig["layout"]["annotations"]]


def test_cpu_modes_are_lines_where_the_points_are_bins_highs_and_lows():
    user, system, iowait = every(10, [70, 10, 70]), every(10, [10, 70, 10]), every(10, [5, 5, 5])
    fig = cpu_disk_figure([("user", user), ("system", system), ("iowait", iowait)], None, Pts(), Pts(),
                          per_poll=False)  # rollups: user's 70 and system's 70 were never read at one poll
    assert not any("stackgroup" in t for t in cpu_traces_of(fig))
    assert "CPU, % of the host (lines: bins' lowest and highest)" in str(fig["layout"])
