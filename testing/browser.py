"""Headless Chromium (Debian's) driven by Playwright, for browser tests."""

import shutil
from pathlib import Path

from django.conf import settings

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str:
    path = settings.CHROMIUM or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError("Debian's chromium is missing: apt-get install chromium (make test does it)")
    return path


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ for a person to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


TRACE_POINTS = "id => document.getElementById(id).data.map(t => (t.x || []).length)"


def open_chart(page, url: str, chart: str) -> list[int]:
    """Load a page, wait for its Plotly chart, return the point count of each trace."""
    page.goto(url)
    page.wait_for_selector(f"#{chart}[data-ready='1']", timeout=20_000)
    return page.evaluate(TRACE_POINTS, chart)
