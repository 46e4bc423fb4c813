"""Number formats the dashboard tables share."""

from datetime import timedelta
from urllib.parse import urlencode

import plotly
from django import template
from django.templatetags.static import static
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from dashboards.analysis.topwaits import human_ps

register = template.Library()


@register.filter
def ps(value: float | None) -> str:
    return human_ps(None if value == "" else value)


@register.filter
def pct(value: float | None) -> str:
    return "" if value in (None, "") else f"{value * 100:.1f} %"


@register.filter
def num(value: float | None, digits: int = 1) -> str:
    if value in (None, ""):
        return "–"
    return f"{value:,.{digits}f}"


UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))


@register.filter
def duration(value: timedelta | None) -> str:
    """A span in its two largest units (8 min 52 s, 1 h 59 min): "8 min" read 52 s short."""
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    big = next((i for i, (_, size) in enumerate(UNITS) if seconds >= size), len(UNITS) - 1)
    (unit, size), parts = UNITS[big], []
    parts.append(f"{seconds // size} {unit}")
    if big + 1 < len(UNITS) and (rest := seconds % size // UNITS[big + 1][1]):
        parts.append(f"{rest} {UNITS[big + 1][0]}")
    return " ".join(parts)


@register.filter
def ratio(value: float | None) -> str:
    return "–" if value in (None, "") else f"×{value:.2f}"


@register.filter
def qs(params: dict) -> str:
    """A dict as a query string (values escaped for a URL)."""
    return urlencode(params)


@register.filter
def event(name: str) -> SafeString:
    """An event name, escaped, with line-break chances after its slashes (they are long)."""
    return mark_safe(escape(name).replace("/", "/<wbr>"))


@register.filter(name="abs")
def absolute(value: float | None) -> float | None:
    return None if value in (None, "") else abs(value)


@register.simple_tag
def plotly_js() -> str:
    """plotly.min.js, its version in the link so browsers may cache it for long (monitor.static_headers)."""
    return f"{static('vendor/plotly/plotly.min.js')}?v={plotly.__version__}"
