"""What the charts draw, checked in headless Chromium: holes break the line, time axes are labelled."""

from datetime import UTC, datetime, timedelta

import pytest

from store.ingest import write_samples
from testing.browser import screenshot
from testing.dashboards import make_server, polls

pytestmark = pytest.mark.browser

# The drawn pieces of the TPS line (the first trace): Plotly draws each unbroken piece as its own path.
TPS_PIECES = """() => {
  const trace = document.querySelector('#stability-chart .scatterlayer .trace');
  return [...trace.querySelectorAll('path.js-line')]
    .reduce((n, p) => n + (p.getAttribute('d').match(/M/g) || []).length, 0);
}"""


def write_with_outage(server, minutes_off: int = 10) -> tuple[datetime, datetime]:
    """40 polls every 10 s, no poll for `minutes_off` minutes, 40 more; returns the hole's edges."""
    end = datetime.now(UTC).replace(microsecond=0)
    second = end - timedelta(seconds=390)
    first = second - timedelta(minutes=minutes_off) - timedelta(seconds=390)
    write_samples(polls(server.pk, first, 40) + polls(server.pk, second, 40))
    return first + timedelta(seconds=390), second


def test_an_outage_is_drawn_as_a_break_and_shaded(page, live_server):
    server = make_server()
    hole_start, hole_end = write_with_outage(server)
    page.goto(f"{live_server.url}/servers/{server.pk}/stability/?range=1h")
    page.wait_for_selector("#stability-chart[data-ready='1']", timeout=20_000)
    assert page.evaluate(TPS_PIECES) == 2  # a line on each side of the hole, none across it
    shapes = page.evaluate("() => document.getElementById('stability-chart').layout.shapes"
                           ".filter(s => s.name === 'no polls').map(s => [s.x0, s.x1])")
    assert len(shapes) == 1 and shapes[0][0].startswith(hole_start.strftime("%Y-%m-%dT%H:%M"))
    assert "no polls: outage or restart" in page.inner_text("table.dips")
    screenshot(page, "dashboards-stability-outage")


OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('#stability-chart .annotation')]
    .filter(a => a.textContent.startsWith('note'))
    .map(a => a.querySelector('.bg') || a).map(e => e.getBoundingClientRect());
  let n = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) n++;
  }
  return [boxes.length, n];
}"""


def test_every_row_has_time_labels_and_labels_stay_readable_within_the_range(page, live_server):
    from servers.models import Annotation

    server = make_server()
    start = write_with_outage(server)[0] - timedelta(seconds=390)
    for k in range(6):  # six long notes 20 s apart: they would print over each other
        Annotation.objects.create(server=server, at=start + timedelta(seconds=30 + 20 * k),
                                  text=f"note {k}: innodb_flush_neighbors=0 and innodb_io_capacity=2000 after a stall")
    page.goto(f"{live_server.url}/servers/{server.pk}/stability/?range=1h")
    page.wait_for_selector("#stability-chart[data-ready='1']", timeout=20_000)
    ticks = page.evaluate("() => ['xtick', 'x2tick', 'x3tick'].map(c => "
                          "[...document.querySelectorAll('#stability-chart .' + c + ' text')].map(t => t.textContent))")
    assert all(len(t) >= 3 and all(":" in x for x in t) for t in ticks), ticks  # HH:MM on every row
    shown, overlapping = page.evaluate(OVERLAPS)
    assert shown == 3 and overlapping == 0  # three rows of labels; the rest join them ("+N")
    hover = page.evaluate("() => document.getElementById('stability-chart').layout.annotations"
                          ".map(a => a.hovertext || '').join('|')")
    assert all(f"note {k}: innodb_flush_neighbors=0 and innodb_io_capacity=2000 after a stall" in hover
               for k in range(6))
    axis = page.evaluate("() => document.getElementById('stability-chart')._fullLayout.xaxis.range")
    now = datetime.now(UTC)
    lo, hi = (datetime.fromisoformat(x[:19]).replace(tzinfo=UTC) for x in axis)
    assert abs((hi - lo) - timedelta(hours=1)) < timedelta(seconds=2) and abs(hi - now) < timedelta(minutes=1)
    screenshot(page, "dashboards-stability-labels")


def test_the_compare_chart_ends_at_the_longest_run(page, live_server):
    from servers.models import Annotation, Run
    from testing.dashboards import write_polls

    server = make_server()
    start = write_polls(server, 60)
    short = Run.objects.create(name="short", server=server, started_at=start, ended_at=start + timedelta(minutes=2))
    long = Run.objects.create(name="long", server=server, started_at=start, ended_at=start + timedelta(minutes=5))
    Annotation.objects.create(run=short, at=start + timedelta(minutes=9), text="after both runs")  # past the end
    page.goto(f"{live_server.url}/compare/?runs={short.pk},{long.pk}")
    page.wait_for_selector("#compare-chart[data-ready='1']", timeout=20_000)
    assert page.evaluate("() => document.getElementById('compare-chart')._fullLayout.xaxis.range") == [0, 300]
    labels = page.evaluate("() => [...document.querySelectorAll('#compare-chart .xtick text')].map(t => t.textContent)")
    assert labels and labels[-1] == "300"
