"""The fleet table's rows as HTML, one format_html per cell.

Drawn through the template language, a row's thirty lookups, filters and the TPS basis include
cost more CPU than reading its figures; here each cell is one call, escaped as the template would.
"""

from django.template.defaultfilters import floatformat, slugify, urlencode
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from dashboards.fleet_rows import FleetRow
from dashboards.server_texts import TpsBasis
from dashboards.templatetags.dash_fmt import absolute, event, num, pct

EMPTY = mark_safe("")


def table_rows(rows: list[tuple[FleetRow, TpsBasis | None]], waits_query: str) -> SafeString:
    """The table body's rows, in the order given."""
    return mark_safe("".join(row_html(row, basis, waits_query) for row, basis in rows))


def row_html(r: FleetRow, basis: TpsBasis | None, waits_query: str) -> SafeString:
    cells = (name_cell(r), state_cell(r), version_cell(r), tps_cell(r, basis), cpu_cell(r), replica_cell(r),
             history_cell(r), trend_cell(r), wait_cell(r, waits_query), alerts_cell(r), links_cell(r))
    return format_html("\n    <tr>\n      {}\n    </tr>\n  ", mark_safe("\n      ".join(cells)))


def old_note(text: str) -> SafeString:
    return format_html('<div class="small muted old">{}</div>', text) if text else EMPTY


def name_cell(r: FleetRow) -> SafeString:
    s = r.server
    tags = format_html('<div class="tags">{}</div>', format_html_join(
        "", '<a href="?tag={}">{}</a>', ((urlencode(t), t) for t in s.tags))) if s.tags else EMPTY
    return format_html('<td><a href="/servers/{}/stability/"><strong>{}</strong></a><br>\n'
                       '        <span class="muted small">{}</span>\n        {}</td>', s.pk, s.name, s.address, tags)


def state_cell(r: FleetRow) -> SafeString:
    why = format_html('<div class="small {}">{}</div>', "warn" if r.state.name == "up" else "muted",
                      r.state.why) if r.state.why else EMPTY
    return format_html('<td><span class="state state-{}">{}</span>\n        {}</td>', slugify(r.state.name),
                       r.state.name, why)


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


def cpu_cell(r: FleetRow) -> SafeString:
    if r.cpu_busy is None:
        return mark_safe('<td class="num cpu-busy"><span class="muted" title="no node_exporter URL, or no poll of it '
                         'yet">–</span></td>')
    return format_html('<td class="num cpu-busy"><a href="/servers/{}/host/">{} %</a></td>', r.server.pk,
                       floatformat(r.cpu_busy, 0))


def replica_cell(r: FleetRow) -> SafeString:
    replica, link = r.replica, f"/servers/{r.server.pk}/replication/"
    if replica is None:
        inner = mark_safe('<span class="muted" title="not a replica">–</span>')
    elif replica.stopped:
        inner = format_html('<a class="warn" href="{}">stopped: {}</a>', link, ", ".join(replica.stopped))
    elif replica.lag_s is None:
        inner = format_html('<a class="muted" href="{}">no lag reported</a>', link)
    else:
        inner = format_html('<a href="{}">{} s</a>', link, num(replica.lag_s, 0))
    return format_html('<td class="num replica">{}</td>', inner)


def history_cell(r: FleetRow) -> SafeString:
    old = r.old.get("history")
    return format_html('<td class="num"><a href="/servers/{}/purge/"{}>{}</a>{}</td>', r.server.pk,
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


def wait_cell(r: FleetRow, waits_query: str) -> SafeString:
    wait, old = r.top_wait, r.old.get("top_wait")
    if not wait:
        return mark_safe('<td class="event"><span class="muted">–</span></td>')
    return format_html(
        '<td class="event"><a href="/servers/{}/waits/?{}"{}>{}</a> <span class="muted nowrap" title="seconds waited '
        'per second at the last poll">{} s/s · {}</span>{}</td>', r.server.pk, waits_query,
        mark_safe(' class="muted"') if old else EMPTY, event(wait.event), num(wait.per_second, 2), pct(wait.share),
        old_note(old or ""))


def alerts_cell(r: FleetRow) -> SafeString:
    if not r.alerts:
        return mark_safe('<td><span class="muted">none</span></td>')
    return format_html("<td>{}</td>", format_html_join("", '<a class="alert-pill" href="/alerts/">{}</a>',
                                                       ((a,) for a in r.alerts)))


def links_cell(r: FleetRow) -> SafeString:
    return format_html('<td class="small"><a href="/servers/{0}/stability/">stability</a> · '
                       '<a href="/servers/{0}/purge/">purge</a> · <a href="/servers/{0}/waits/">waits</a></td>',
                       r.server.pk)
