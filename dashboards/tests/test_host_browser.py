"""The stability view's host panel in headless Chromium: it keeps the stability chart's time axis."""

from datetime import UTC, datetime

import pytest

from testing.browser import screenshot
from testing.dashboards import make_server, write_polls
from testing.host import POLLS, host_polls

pytestmark = pytest.mark.browser

# The x range and the plot area's left edge and width, in pixels, of a chart.
AXIS = "id => { const l = document.getElementById(id)._fullLayout; return [l.xaxis.range, l._size.l, l._size.w]; }"
SAME_AXIS = f"() => JSON.stringify(({AXIS})('stability-chart')) === JSON.stringify(({AXIS})('host-chart'))"
# Half of the current range, starting a quarter in: a zoom.
HALF = ("id => { const r = document.getElementById(id)._fullLayout.xaxis.range;"
        " const a = new Date(r[0] + 'Z').getTime(), b = new Date(r[1] + 'Z').getTime();"
        " return [a + (b - a) / 4, a + 3 * (b - a) / 4].map(t => new Date(t).toISOString().slice(0, 19)); }")


def test_the_host_panel_shares_the_stability_time_axis_and_zoom(page, live_server):
    server = make_server(node_exporter_url="http://127.0.0.1:9100/metrics")
    end = datetime.now(UTC)
    write_polls(server, POLLS, end=end)
    host_polls(server.pk, end)
    page.goto(f"{live_server.url}/servers/{server.pk}/stability/?range=1h")
    for chart in ("stability-chart", "host-chart"):
        page.wait_for_selector(f"#{chart}[data-ready='1']", timeout=20_000)
    try:
        page.wait_for_function(SAME_AXIS, timeout=10_000)
    finally:
        screenshot(page, "dashboards-stability-host-panel")
    for zoomed, other in (("host-chart", "stability-chart"), ("stability-chart", "host-chart")):
        half = page.evaluate(HALF, zoomed)
        page.evaluate("([id, r]) => Plotly.relayout(id, {'xaxis.range': r})", [zoomed, half])
        page.wait_for_function(SAME_AXIS, timeout=10_000)
        assert page.evaluate(AXIS, other)[0][0].replace(" ", "T").startswith(half[0])
