"""The host page's axes in Chromium: plain numbers in the row's unit, never SI suffixes (0.6 ms, not "600m")."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from store.ingest import write_samples
from store.sample import Sample
from testing.browser import screenshot
from testing.dashboards import make_server

pytestmark = pytest.mark.browser
TICKS = "() => [...document.querySelectorAll('#host-page-chart .yaxislayer-above text')].map(t => t.textContent)"


def test_sub_millisecond_awaits_and_large_byte_rates_read_as_plain_numbers(page, live_server):
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC)
    write_samples([Sample(server.pk, "node_exporter", end - timedelta(seconds=10 * i), 10.0,
                          {"host.disk.await_ms:vda": 0.4 + 0.05 * (i % 5), "host.disk.util_pct:vda": 5.0,
                           "host.net.rx_bytes:eth0": 25_000_000.0 * 10, "host.cpus": 2},
                          frozenset({"host.net.rx_bytes:eth0"})) for i in range(1, 60)])
    page.goto(f"{live_server.url}/servers/{server.pk}/host/?range=15m")
    page.wait_for_selector("#host-page-chart[data-ready='1']", timeout=20_000)
    ticks = page.evaluate(TICKS)
    screenshot(page, "dashboards-host-axes")
    assert ticks and not [t for t in ticks if re.search(r"[0-9][a-zA-Zµ]$", t)], ticks  # no 600m, 25M, 2.1k
    assert {"0.4", "0.5", "0.6"} & set(ticks), ticks  # the await row: 0.4 to 0.6 ms
    assert any(re.fullmatch(r"\d{1,3}(,\d{3}){2,}", t) for t in ticks), ticks  # 25,000,000 B/s, separated
