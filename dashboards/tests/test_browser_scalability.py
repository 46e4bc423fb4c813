"""The Scalability page in headless Chromium: two sweeps, two curves, one point per level."""

from datetime import timedelta

import pytest

from testing.dashboards import RECENT_T0, make_server
from testing.scalability import write_sweep

pytestmark = pytest.mark.browser

TPS_LINES = """id => document.getElementById(id).data.filter(t => t.meta === "tps")
  .map(t => ({name: t.name, x: Array.from(t.x), points: t.y.filter(v => v !== null).length}))"""


def test_two_sweeps_draw_two_curves_with_a_point_per_level(page, live_server):
    server = make_server("lab1")
    write_sweep(server, "baseline", "", RECENT_T0, {1: 1000, 2: 1900, 4: 3000, 8: 3100})
    write_sweep(server, "no neighbors", "innodb_flush_neighbors=0", RECENT_T0 + timedelta(hours=1),
                {1: 1000, 2: 2000, 4: 3900, 8: 6000})
    page.goto(f"{live_server.url}/scalability/")
    page.check("input[name=sweep][value='baseline']")
    page.check("input[name=sweep][value='no neighbors']")
    page.click("#sweep-picker button[type=submit]")
    page.wait_for_selector("#chart-scalability[data-ready='1']", timeout=20_000)
    lines = page.evaluate(TPS_LINES, "chart-scalability")
    assert [line["name"] for line in lines] == ["baseline", "no neighbors · innodb_flush_neighbors=0"]
    assert all(line["x"] == [1, 2, 4, 8] and line["points"] == 4 for line in lines)
    legend = page.locator("#chart-scalability .legendtext").all_text_contents()
    assert len(legend) == 4 and sum("USL fit" in text for text in legend) == 2  # each line and its fit; no bands
    assert page.locator("#chart-scalability .annotation-text").all_text_contents() == [
        "knee: 4 threads", "still scaling at 8 threads"]  # 4 -> 8 gained 2.5 % of one thread's TPS per thread;
    # no neighbors gained at every step (2,100 / 4 / 1,000 = 52.5 % at 4 -> 8): its last level is no knee
    page.wait_for_selector("#chart-scalability-waits[data-ready='1']")
    assert page.locator("#scalability-table tbody tr").count() == 4
