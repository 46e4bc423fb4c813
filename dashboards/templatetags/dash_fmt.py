"""Number formats the dashboard tables share."""

import json
from datetime import datetime, timedelta
from urllib.parse import urlencode

import orjson
import plotly
from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.template.defaultfilters import floatformat
from django.templatetags.static import static
from django.templatetags.tz import utc
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from alerts.numbers import fmt_span
from dashboards import query_params, timerange
from dashboards.analysis.topwaits import human_ps
from workload.pause import demo_flag, is_paused

register = template.Library()


# What json_script writes for each character that could end its <script> element.
SCRIPT_ESCAPES = (("&", "\\u0026"), ("<", "\\u003C"), (">", "\\u003E"))


@register.filter
def figures_json(value: object, element_id: str) -> SafeString:
    """json_script's JSON, compact, with its escapes made by str.replace, not str.translate, which takes ~10 ms
    a MB (a week's figures are ~850 kB). orjson writes a week's stability figures in 5 ms, json.dumps in 20-30."""
    try:
        text = orjson.dumps(value, default=DjangoJSONEncoder().default, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # an integer past 64 bits, which json writes
        text = json.dumps(value, cls=DjangoJSONEncoder)
    for char, code in SCRIPT_ESCAPES:
        text = text.replace(char, code)
    return format_html('<script id="{}" type="application/json">{}</script>', element_id, mark_safe(text))


@register.filter
def ps(value: float | None) -> str:
    return human_ps(None if value == "" else value)


@register.filter
def up_to_second(value: datetime | None) -> datetime | None:
    return None if value is None else timerange.up_to_second(value)


@register.filter(expects_localtime=True)
def second_time(value: datetime | None, with_day: bool = True) -> str:
    """|date:"Y-m-d H:i:s" (or "H:i:s" with False), the same text by strftime: a table of a hundred dips
    formats two hundred times."""
    if value in (None, ""):
        return ""
    return value.strftime("%Y-%m-%d %H:%M:%S" if with_day else "%H:%M:%S")


@register.filter
def pct(value: float | None) -> str:
    return "" if value in (None, "") else f"{value * 100:.1f} %"


@register.filter
def num(value: float | None, digits: int = 1) -> str:
    if value in (None, ""):
        return "–"
    return f"{value:,.{digits}f}"


@register.filter
def duration(value: timedelta | None) -> str:
    return "–" if value is None else fmt_span(value)


@register.filter
def fine_duration(value: timedelta) -> str:
    """A span that may be under a second (a pixel of a few minutes' chart): 0.2 s, where duration says 0 s."""
    seconds = value.total_seconds()
    return f"{seconds:.2g} s" if seconds < 0.95 else fmt_span(value)


@register.filter
def ratio(value: float | None) -> str:
    return "–" if value in (None, "") else f"×{value:.2f}"


@register.filter
def utc_second(value: object) -> str:
    """`value|utc|date:"Y-m-d H:i:s"` by strftime: the date filter parses its format at every call, ~0.1 ms,
    and a week's holders table writes 250 times (years 1970-2100 have four digits either way)."""
    moved = utc(value)
    return moved.strftime("%Y-%m-%d %H:%M:%S") if isinstance(moved, datetime) else ""


@register.filter
def qs(params: dict) -> str:
    """A dict as a query string (values escaped for a URL)."""
    return urlencode(params)


@register.filter
def query_items(get) -> list[tuple[str, str]]:
    """A query's (name, last value) pairs, for a form's hidden inputs: request.GET.items in a template reads a
    parameter named items. None holding a NUL (query_params.echoable)."""
    return [(k, v) for k, v in get.items() if query_params.echoable(k, v)]


@register.filter(name="echo")
def echo_value(value: str | None) -> str:
    """A parameter's value as a form field shows it again (query_params.echo): never a NUL character."""
    return query_params.echo(value or "")


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


@register.simple_tag
def demo_load_paused() -> bool:
    """Whether the demo's load is paused (workload.pause): the demo server's pages offer the other action."""
    return is_paused(demo_flag())


# A row of the stability page's dips table, as its template wrote it with a {% for %}: a week's 120 rows took ~7 ms
# of template variable lookups.
DIP_ROW = (
    '\n        <tr><td>{}</td><td>{}</td><td class="num">{} s</td><td class="num">{}{}</td>\n'
    '          <td><a href="{}" title="the statements that used the most time in this dip: the digest reads ending in '
    'it or within one statements interval ({} s) after it, the read that covers its last second">statements</a>'
    '</td></tr>\n      '
)
STALLED = mark_safe(' <span class="muted">no polls: outage or restart</span>')


@register.simple_tag
def dip_rows(dips: list, statements_interval: int, causes: dict | None = None) -> SafeString:
    """The dips table's rows, one for each (Dip, its statements link); causes: what a stall was, by its start
    (counter_holes.stall_causes), where the server said."""
    causes = causes or {}
    return format_html_join("", DIP_ROW, (
        (second_time(d.start), second_time(d.end, False), floatformat(d.seconds, 0),
         "" if d.lowest is None else num(d.lowest), stalled(causes.get(d.start)) if d.stalled else "", link,
         statements_interval)
        for d, link in dips))


@register.simple_tag
def stall_note(dip, causes: dict | None) -> SafeString:
    """A stall's words in a table of Dips (the run report's): what reset the counters, else that no poll measured
    it."""
    return stalled((causes or {}).get(dip.start))


def stalled(cause: str | None) -> SafeString:
    """A stall's words: what reset the counters where the server said, else that no poll measured it."""
    return format_html(' <span class="muted">{}</span>', cause) if cause else STALLED
