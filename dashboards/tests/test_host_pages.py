"""Host statistics on the pages: the stability view's CPU/disk panel, the Host page, their CSVs."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from collectors.models import ServerHealth
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import csv_rows, figures, make_server, tps_at, write_polls
from testing.host import BUSY_PER_POLL, POLLS, STEP, host_polls, user_pct

pytestmark = pytest.mark.django_db
def test_stability_shows_cpu_and_the_busiest_disk_under_tps(admin_client):
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC)
    write_polls(server, POLLS, end=end)
    host_polls(server.pk, end)
    response = admin_client.get(f"/servers/{server.pk}/stability/?range=1h")
    fig = figures(response)["host-chart"]
    traces = {t["name"]: t for t in fig["data"]}
    assert [t["name"] for t in fig["data"][:3]] == ["CPU user", "CPU system", "CPU iowait"]
    assert traces["CPU user"]["y"] == [user_pct(i) for i in range(1, POLLS)]
    assert traces["vda await"]["y"] == [3.0] * (POLLS - 1)  # vda, the busier device, not sdb
    assert traces["vda util"]["yaxis"] == "y3" and "sdb await" not in traces
    body = response.content.decode()
    assert "<strong>vda</strong>, the busiest" in body
    links = re.findall(r'href="(/export\.csv\?[^"]+)"', body)
    host_csv = [link for link in links if "host.cpu.user_pct" in link][0]
    rows = csv_rows(admin_client, host_csv.replace("&amp;", "&"))
    col = rows[0].index("db1 host.cpu.user_pct (%)")
    assert [float(r[col]) for r in rows[1:] if r[col]] == [user_pct(i) for i in range(1, POLLS)]
    assert "db1 host.disk.util_pct:vda (%)" in rows[0] and "db1 host.disk.await_ms:vda (ms)" in rows[0]


def test_the_stability_panel_stacks_every_busy_mode_so_its_top_is_100_minus_idle(admin_client):
    """A mariadbd started under nice spends its CPU in "nice": the panel once stacked user, system and iowait only."""
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC)
    write_polls(server, POLLS, end=end)
    # Each poll: user 1, nice 65, system 18, iowait 2, softirq 1, steal 1 (% of the host), idle 12.
    modes = {"user": 1.0, "nice": 65.0, "system": 18.0, "iowait": 2.0, "irq": 0.0, "softirq": 1.0, "steal": 1.0}
    write_samples([Sample(server.pk, "node_exporter", end - timedelta(seconds=STEP * (POLLS - 1 - i)), float(STEP),
                          {**{f"host.cpu.{m}_pct": v for m, v in modes.items()}, "host.cpu.idle_pct": 12.0},
                          frozenset()) for i in range(1, POLLS)])
    response = admin_client.get(f"/servers/{server.pk}/stability/?range=1h")
    cpu = [t for t in figures(response)["host-chart"]["data"] if t["name"].startswith("CPU ")]
    assert {t["name"] for t in cpu} == {"CPU user", "CPU nice", "CPU system", "CPU iowait", "CPU irq",
                                        "CPU softirq", "CPU steal"}
    tops = [sum(t["y"][k] for t in cpu) for k in range(POLLS - 1)]
    assert tops == [pytest.approx(88.0)] * (POLLS - 1)  # 100 - 12 idle: not user + system + iowait's 21
    assert "host.cpu.nice_pct" in response.content.decode()  # in the panel's CSV link


def test_the_host_page_draws_every_host_statistic(admin_client):
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    host_polls(server.pk, datetime.now(UTC))
    response = admin_client.get(f"/servers/{server.pk}/host/?range=1h")
    traces = {t["name"]: t for t in figures(response)["host-page-chart"]["data"]}
    assert traces["disk.reads:vda"]["y"] == [100.0] * (POLLS - 1)  # 1,000 reads per 10 s poll
    assert traces["mem.used_bytes"]["y"] == [2048.0] * (POLLS - 1)  # MiB
    assert traces["CPU user"]["y"] == [user_pct(i) for i in range(1, POLLS)]
    assert "host.disk.reads%3Avda" in response.content.decode()  # in the CSV link


def test_a_server_without_node_exporter_says_how_to_get_host_statistics(admin_client):
    server = make_server()
    write_polls(server, 20)
    stability = admin_client.get(f"/servers/{server.pk}/stability/?range=1h")
    assert "host-chart" not in figures(stability)
    assert "no node_exporter URL" in stability.content.decode()
    assert "no node_exporter URL" in admin_client.get(f"/servers/{server.pk}/host/").content.decode()


def test_the_host_page_says_why_node_exporter_fails(admin_client):
    server = make_server(node_exporter_url="http://127.0.0.1:1/metrics")
    error = "db1: node_exporter: http://127.0.0.1:1/metrics: connection refused <b>"
    ServerHealth.objects.create(server=server, sources={"node_exporter": {"ok": False, "error": error}})
    body = admin_client.get(f"/servers/{server.pk}/host/").content.decode()
    # The source and the server named once (the page is the server's own).
    assert "node_exporter failing: http://127.0.0.1:1/metrics: connection refused &lt;b&gt;</p>" in body


def test_the_fleet_shows_cpu_busy_beside_tps(admin_client):
    with_agent, without = make_server("db1"), make_server("db2")
    end = datetime.now(UTC)
    host_polls(with_agent.pk, end)
    write_polls(without, 5, end=end)
    rows = {r.server.name: r for r in admin_client.get("/").context["rows"]}
    assert rows["db1"].cpu_busy == 40.0 + (POLLS - 1) % 5  # the last poll's figure
    assert rows["db2"].cpu_busy is None
    fleet = admin_client.get("/").content.decode()
    assert f'<a href="/servers/{with_agent.pk}/host/">{40 + (POLLS - 1) % 5} %</a>' in fleet
    table = csv_rows(admin_client, "/export/fleet.csv")
    col = table[0].index("CPU busy now (%)")
    assert table[0][col - 1:col + 2] == ["history trend since (UTC)", "CPU busy now (%)", "CPU busy read at (UTC)"]
    by_name = {row[0]: row[col] for row in table[1:]}
    assert float(by_name["db1"]) == 40 + (POLLS - 1) % 5 and by_name["db2"] == ""


def test_top_waits_and_compare_show_cpu_and_waits_per_transaction(admin_client):
    from servers.models import Run

    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC)
    start = write_polls(server, POLLS, end=end)
    host_polls(server.pk, end)
    transactions = sum(tps_at(i) for i in range(1, POLLS))  # the tps deltas written
    waited_ps = sum((3 - k % 3) * 10**12 * STEP // 4 + i * 10**9 for i in range(1, POLLS) for k in range(3))
    pt = admin_client.get(f"/servers/{server.pk}/waits/?range=1h").context["per_trx"]
    assert pt.transactions == transactions
    assert pt.cpu_ms == pytest.approx(1000 * BUSY_PER_POLL * (POLLS - 1) / transactions)
    assert pt.wait_ms == pytest.approx(waited_ps / 1e9 / transactions)

    run = Run.objects.create(name="r1", server=server, started_at=start, ended_at=end)
    response = admin_client.get(f"/compare/?runs={run.pk}")
    (row,) = response.context["summaries"]
    assert row.per_trx.cpu_ms == pytest.approx(1000 * BUSY_PER_POLL * (POLLS - 1) / transactions)
    assert f"{row.per_trx.cpu_ms:.3f} ms" in response.content.decode()
