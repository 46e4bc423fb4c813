"""The fleet table's rows as HTML, one format_html per cell.

Drawn through the template language, a row's thirty lookups, filters and the TPS basis include
cost more CPU than reading its figures; here each cell is one call, escaped as the template would.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.template.defaultfilters import floatformat, slugify, urlencode
from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from dashboards.fleet_rows import FleetRow
from dashboards.links import id_path
from dashboards.server_texts import TpsBasis
from dashboards.templatetags.dash_fmt import absolute, event, num, pct

EMPTY = mark_safe("")


@dataclass(frozen=True)
class Paths:
    """The pages a row links to: each reversed once per page, not once per cell."""

    stability: Callable[[int], SafeString]
    purge: Callable[[int], SafeString]
    waits: Callable[[int], SafeString]
    host: Callable[[int], SafeString]
    replication: Callable[[int], SafeString]
    alerts: str
    waits_query: str  # the waits page's range (and cond=1) as the fleet shows it: now


def page_paths(waits_query: str) -> Paths:
    return Paths(html_path("dashboards:stability"), html_path("dashboards:purge"), html_path("dashboards:waits"),
                 html_path("dashboards:host"), html_path("dashboards:replication"), reverse("alerts:index"),
                 waits_query)


def html_path(name: str) -> Callable[[int], SafeString]:
    """A server page's path for any id, escaped once here: format_html takes a SafeString as it is."""
    before, after = (escape(part) for part in id_path(name))
    return lambda pk: SafeString(f"{before}{pk}{after}")


def table_rows(rows: list[tuple[FleetRow, TpsBasis | None]], waits_query: str) -> SafeString:
    """The table body's rows, in the order given."""
    paths = page_paths(waits_query)
    return mark_safe("".join(row_html(row, basis, paths) for row, basis in rows))


def row_html(r: FleetRow, basis: TpsBasis | None, p: Paths) -> SafeString:
    cells = (name_cell(r, p), state_cell(r, p), version_cell(r), tps_cell(r, basis), cpu_cell(r, p), replica_cell(r, p),
             history_cell(r, p), trend_cell(r), wait_cell(r, p), alerts_cell(r, p), links_cell(r, p))
    return format_html("\n    <tr>\n      {}\n    </tr>\n  ", mark_safe("\n      ".join(cells)))


def old_note(text: str) -> SafeString:
    return format_html('<div class="small muted old">{}</div>', text) if text else EMPTY


def name_cell(r: FleetRow, p: Paths) -> SafeString:
    s = r.server
    tags = format_html('<div class="tags">{}</div>', format_html_join(
        "", '<a href="?tag={}">{}</a>', ((urlencode(t), t) for t in s.tags))) if s.tags else EMPTY
    return format_html('<td><a href="{}"><strong>{}</strong></a><br>\n'
                       '        <span class="muted small">{}</span>\n        {}</td>', p.stability(s.pk), s.name,
                       s.address, tags)


def state_cell(r: FleetRow, p: Paths) -> SafeString:
    short = r.state.short_why
    why = format_html('<div class="small {}">{}</div>', "warn" if r.state.name == "up" else "muted",
                      short) if short else EMPTY
    return format_html('<td><span class="state state-{}">{}</span>\n        {}{}</td>', slugify(r.state.name),
                       r.state.name, pfs_line(r, p), why)


def pfs_line(r: FleetRow, p: Paths) -> SafeString:
    """One line for the sources performance_schema OFF leaves with nothing to read, linking to the note of the
    server's stability page that says how to turn it on (each source's own words are in the fleet CSV)."""
    if not r.state.pfs_off:
        return EMPTY
    return format_html('<div class="small warn pfs-off">performance_schema is OFF: no {} · '
                       '<a href="{}#source-problem">how to turn it on</a></div>', ", ".join(r.state.pfs_off),
                       p.stability(r.server.pk))


def version_cell(r: FleetRow) -> SafeString:
    s = r.server
    if not s.version:
        return mark_safe('<td class="small">–</td>')
    return format_html('<td class="small"><span title="{}">{}</span></td>', s.version, s.version_label)


def tps_cell(r: FleetRow, basis: TpsBasis | None) -> SafeString:
    figure = (format_html('<span class="muted">{}</span>{}', num(r.tps), old_note(r.old["tps"]))
              if r.old.get("tps") else num(r.tps))
    return format_html('<td class="num">{}{}</td>', figure, basis_html(basis))


def basis_html(basis: TpsBasis | None) -> SafeString:
    """What the TPS counts (templates/dashboards/_tps_basis.html, which the other pages include)."""
    if basis is None:
        return EMPTY
    if basis.explicit_only:
        return format_html('<details class="tps-basis small"><summary class="warn">{}: autocommit statements are not '
                           'counted</summary><span class="muted">{}; {}</span></details>', basis.short,
                           basis.sentence, basis.fix)
    return format_html('<div class="tps-basis small muted" title="{}">{}</div>', basis.sentence, basis.short)


def cpu_cell(r: FleetRow, p: Paths) -> SafeString:
    if r.cpu_busy is None:
        return mark_safe('<td class="num cpu-busy"><span class="muted" title="no node_exporter URL, or no poll of it '
                         'yet">–</span></td>')
    return format_html('<td class="num cpu-busy"><a href="{}">{} %</a></td>', p.host(r.server.pk),
                       floatformat(r.cpu_busy, 0))


def replica_cell(r: FleetRow, p: Paths) -> SafeString:
    replica, link = r.replica, p.replication(r.server.pk)
    if replica is None:
        inner = mark_safe('<span class="muted" title="not a replica">–</span>')
    elif replica.stopped:
        inner = format_html('<a class="warn" href="{}">stopped: {}</a>', link, ", ".join(replica.stopped))
    elif replica.lag_s is None:
        inner = format_html('<a class="muted" href="{}">no lag reported</a>', link)
    else:
        inner = format_html('<a href="{}">{} s</a>', link, num(replica.lag_s, 0))
    return format_html('<td class="num replica">{}</td>', inner)


def history_cell(r: FleetRow, p: Paths) -> SafeString:
    old = r.old.get("history")
    return format_html('<td class="num"><a href="{}"{}>{}</a>{}</td>', p.purge(r.server.pk),
                       mark_safe(' class="muted"') if old else EMPTY, num(r.history, 0), old_note(old or ""))


def trend_cell(r: FleetRow) -> SafeString:
    per_min, old = r.history_per_min, r.old.get("trend")
    tone = "muted" if old else "warn" if per_min and per_min > 0 else ""
    if per_min is None:
        figure = format_html('<span class="muted" title="{}">–</span>', r.trend.why)
    elif per_min > 0:
        figure = format_html("↑ {}/min", num(per_min))
    elif per_min < 0:
        figure = format_html("↓ draining {}/min", num(absolute(per_min)))
    else:
        figure = mark_safe("→ flat")
    note = format_html('<div class="small muted">{}</div>', r.trend_note) if r.trend_note else EMPTY
    fitted = (format_html('<div class="small muted old">fitted up to the reading {}</div>', old)
              if old and per_min is not None else EMPTY)
    return format_html('<td class="num trend {}">{}\n        {}{}</td>', tone, figure, note, fitted)


def wait_cell(r: FleetRow, p: Paths) -> SafeString:
    wait, old = r.top_wait, r.old.get("top_wait")
    if not wait:
        return mark_safe('<td class="event"><span class="muted">–</span></td>')
    return format_html(
        '<td class="event"><a href="{}?{}"{}>{}</a> <span class="muted nowrap" title="seconds waited '
        'per second at the last poll">{} s/s · {}</span>{}</td>', p.waits(r.server.pk), p.waits_query,
        mark_safe(' class="muted"') if old else EMPTY, event(wait.event), num(wait.per_second, 2), pct(wait.share),
        old_note(old or ""))


def alerts_cell(r: FleetRow, p: Paths) -> SafeString:
    if not r.alerts:
        return mark_safe('<td><span class="muted">none</span></td>')
    return format_html("<td>{}</td>", format_html_join("", '<a class="alert-pill" href="{}">{}</a>',
                                                       ((p.alerts, a) for a in r.alerts)))


def links_cell(r: FleetRow, p: Paths) -> SafeString:
    pk = r.server.pk
    return format_html('<td class="small"><a href="{}">stability</a> · <a href="{}">purge</a> · '
                       '<a href="{}">waits</a></td>', p.stability(pk), p.purge(pk), p.waits(pk))
