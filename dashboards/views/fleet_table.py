"""The fleet table's rows as HTML, one f-string per cell.

Drawn through the template language, a row's thirty lookups, filters and the TPS basis include
cost more CPU than reading its figures; format_html's lazy-text checks on each argument were most of
what was left. Here each value is escaped once (esc: as format_html escapes its arguments).
"""

import html
from collections.abc import Callable
from dataclasses import dataclass

from django.template.defaultfilters import floatformat, slugify, urlencode
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from dashboards.fleet_rows import FleetRow
from dashboards.links import id_path
from dashboards.server_texts import TpsBasis
from dashboards.templatetags.dash_fmt import absolute, event, num, pct


def esc(value: object) -> str:
    """conditional_escape(), as format_html applies it to each argument, without its lazy-text wrapper:
    a SafeString as it is, anything else as text with & < > " ' escaped (django.utils.html.escape's)."""
    return value if isinstance(value, SafeString) else html.escape(str(value))


@dataclass(frozen=True)
class Paths:
    """The pages a row links to: each reversed once per page, not once per cell."""

    stability: Callable[[int], SafeString]
    purge: Callable[[int], SafeString]
    waits: Callable[[int], SafeString]
    host: Callable[[int], SafeString]
    replication: Callable[[int], SafeString]
    alerts: str  # escaped
    waits_query: str  # the waits page's range (and cond=1) as the fleet shows it: now; escaped


def page_paths(waits_query: str) -> Paths:
    return Paths(html_path("dashboards:stability"), html_path("dashboards:purge"), html_path("dashboards:waits"),
                 html_path("dashboards:host"), html_path("dashboards:replication"), esc(reverse("alerts:index")),
                 esc(waits_query))


def html_path(name: str) -> Callable[[int], SafeString]:
    """A server page's path for any id, escaped once here: esc() takes a SafeString as it is."""
    before, after = (escape(part) for part in id_path(name))
    return lambda pk: SafeString(f"{before}{pk}{after}")


def table_rows(rows: list[tuple[FleetRow, TpsBasis | None]], waits_query: str) -> SafeString:
    """The table body's rows, in the order given."""
    paths = page_paths(waits_query)
    return mark_safe("".join(row_html(row, basis, paths) for row, basis in rows))


CELLS = "\n      "
MUTED = ' class="muted"'  # a greyed link: its figure is old


def row_html(r: FleetRow, basis: TpsBasis | None, p: Paths) -> str:
    cells = (name_cell(r, p), state_cell(r, p), version_cell(r), tps_cell(r, basis), cpu_cell(r, p), replica_cell(r, p),
             history_cell(r, p), trend_cell(r), wait_cell(r, p), alerts_cell(r, p), links_cell(r, p))
    return f"\n    <tr>\n      {CELLS.join(cells)}\n    </tr>\n  "


def old_note(text: str) -> str:
    return f'<div class="small muted old">{esc(text)}</div>' if text else ""


def name_cell(r: FleetRow, p: Paths) -> str:
    s = r.server
    links = "".join(f'<a href="?tag={esc(urlencode(t))}">{esc(t)}</a>' for t in s.tags)
    tags = f'<div class="tags">{links}</div>' if s.tags else ""
    return (f'<td><a href="{p.stability(s.pk)}"><strong>{esc(s.name)}</strong></a><br>\n'
            f'        <span class="muted small">{esc(s.address)}</span>\n        {tags}</td>')


def state_cell(r: FleetRow, p: Paths) -> str:
    short = r.state.short_why
    why = f'<div class="small {"warn" if r.state.name == "up" else "muted"}">{esc(short)}</div>' if short else ""
    return (f'<td><span class="state state-{esc(slugify(r.state.name))}">{esc(r.state.name)}</span>\n'
            f'        {pfs_line(r, p)}{why}</td>')


def pfs_line(r: FleetRow, p: Paths) -> str:
    """One line for the sources performance_schema OFF leaves with nothing to read, linking to the note of the
    server's stability page that says how to turn it on (each source's own words are in the fleet CSV)."""
    if not r.state.pfs_off:
        return ""
    return (f'<div class="small warn pfs-off">performance_schema is OFF: no {esc(", ".join(r.state.pfs_off))} · '
            f'<a href="{p.stability(r.server.pk)}#source-problem">how to turn it on</a></div>')


def version_cell(r: FleetRow) -> str:
    s = r.server
    if not s.version:
        return '<td class="small">–</td>'
    return f'<td class="small"><span title="{esc(s.version)}">{esc(s.version_label)}</span></td>'


def tps_cell(r: FleetRow, basis: TpsBasis | None) -> str:
    figure = esc(num(r.tps))
    if r.old.get("tps"):
        figure = f'<span class="muted">{figure}</span>{old_note(r.old["tps"])}'
    return f'<td class="num">{figure}{basis_html(basis)}</td>'


def basis_html(basis: TpsBasis | None) -> SafeString:
    """What the TPS counts (templates/dashboards/_tps_basis.html, which the other pages include)."""
    if basis is None:
        return mark_safe("")
    if basis.explicit_only:
        return mark_safe(f'<details class="tps-basis small"><summary class="warn">{esc(basis.short)}: autocommit '
                         f'statements are not counted</summary><span class="muted">{esc(basis.sentence)}; '
                         f'{esc(basis.fix)}</span></details>')
    return mark_safe(f'<div class="tps-basis small muted" title="{esc(basis.sentence)}">{esc(basis.short)}</div>')


def cpu_cell(r: FleetRow, p: Paths) -> str:
    if r.cpu_busy is None:
        return ('<td class="num cpu-busy"><span class="muted" title="no node_exporter URL, or no poll of it '
                'yet">–</span></td>')
    old = r.old.get("cpu")
    return (f'<td class="num cpu-busy"><a{MUTED if old else ""} href="{p.host(r.server.pk)}">'
            f'{esc(floatformat(r.cpu_busy, 0))} %</a>{old_note(old or "")}</td>')


def replica_cell(r: FleetRow, p: Paths) -> str:
    replica, link = r.replica, p.replication(r.server.pk)
    if replica is None:
        inner = '<span class="muted" title="not a replica">–</span>'
    elif replica.stopped:
        inner = f'<a class="warn" href="{link}">stopped: {esc(", ".join(replica.stopped))}</a>'
    elif replica.lag_s is None:
        inner = f'<a class="muted" href="{link}">no lag reported</a>'
    else:
        inner = f'<a href="{link}">{esc(num(replica.lag_s, 0))} s</a>'
    return f'<td class="num replica">{inner}</td>'


def history_cell(r: FleetRow, p: Paths) -> str:
    old = r.old.get("history")
    return (f'<td class="num"><a href="{p.purge(r.server.pk)}"{MUTED if old else ""}>'
            f'{esc(num(r.history, 0))}</a>{old_note(old or "")}</td>')


def trend_cell(r: FleetRow) -> str:
    per_min, old = r.history_per_min, r.old.get("trend")
    tone = "muted" if old else "warn" if per_min and per_min > 0 else ""
    if per_min is None:
        figure = f'<span class="muted" title="{esc(r.trend.why)}">–</span>'
    elif per_min > 0:
        figure = f"↑ {esc(num(per_min))}/min"
    elif per_min < 0:
        figure = f"↓ draining {esc(num(absolute(per_min)))}/min"
    else:
        figure = "→ flat"
    note = f'<div class="small muted">{esc(r.trend_note)}</div>' if r.trend_note else ""
    fitted = (f'<div class="small muted old">fitted up to the reading {esc(old)}</div>'
              if old and per_min is not None else "")
    return f'<td class="num trend {tone}">{figure}\n        {note}{fitted}</td>'


def wait_cell(r: FleetRow, p: Paths) -> str:
    wait, old = r.top_wait, r.old.get("top_wait")
    if not wait:
        return f'<td class="event"><span class="muted">–</span>{waits_off_line(r, p)}</td>'
    return (f'<td class="event"><a href="{p.waits(r.server.pk)}?{p.waits_query}"{MUTED if old else ""}>'
            f'{event(wait.event)}</a> <span class="muted nowrap" title="seconds waited per second at the last poll">'
            f'{esc(num(wait.per_second, 2))} s/s · {esc(pct(wait.share))}</span>{old_note(old or "")}'
            f'{waits_off_line(r, p)}</td>')


def waits_off_line(r: FleetRow, p: Paths) -> str:
    """The wait instruments the server leaves off (MariaDB's default: every wait/synch one), linking to the waits
    page, whose note gives the statement that turns them on."""
    if not r.waits_off:
        return ""
    return (f'<div class="small warn waits-off">{esc(r.waits_off)} instruments off: their waits are not counted · '
            f'<a href="{p.waits(r.server.pk)}?{p.waits_query}">how to turn them on</a></div>')


def alerts_cell(r: FleetRow, p: Paths) -> str:
    if not r.alerts:
        return '<td><span class="muted">none</span></td>'
    return "<td>" + "".join(f'<a class="alert-pill" href="{p.alerts}">{esc(a)}</a>' for a in r.alerts) + "</td>"


def links_cell(r: FleetRow, p: Paths) -> str:
    pk = r.server.pk
    return (f'<td class="small"><a href="{p.stability(pk)}">stability</a> · <a href="{p.purge(pk)}">purge</a> · '
            f'<a href="{p.waits(pk)}">waits</a></td>')
