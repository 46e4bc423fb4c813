"""Per-server InnoDB pressure page: redo, buffer pool, flushing, row locks, purge against DML, DML delay."""

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from collectors import monitor_enable
from dashboards import reads
from dashboards.analysis import pressure as spec
from dashboards.figures.pressure import pressure_figure
from dashboards.links import chart_csv
from dashboards.marks import server_marks
from dashboards.pressure_reads import SETTINGS, capacity_change, dml_line, settings_in_force
from dashboards.unreachable import unreachable
from dashboards.views.common import page_range, range_context
from servers.models import Server


@dataclass(frozen=True)
class SourceRow:
    """One line of the "where each series comes from" table."""

    label: str
    metric: str | None
    origin: str
    enable: str


def figure_lines(chosen: dict, found: dict, dml: tuple[str, ...], dml_points: spec.Summed | None) -> list[tuple]:
    lines = []
    for line in spec.LINES:
        metric = chosen[line.key]
        if metric and metric in found:
            scale = 1 / spec.MIB if line.row == 1 else 1.0
            lines.append((line.row, line.label, found[metric], scale))
    if dml_points is not None:
        lines.append((5, f"DML rows /s ({' + '.join(dml)})", dml_points, 1.0))
    return lines


def source_rows(chosen: dict, dml: tuple[str, ...]) -> list[SourceRow]:
    rows = [SourceRow(line.label, chosen[line.key], line.origin, "" if chosen[line.key] else line.enable_sql)
            for line in spec.LINES]
    rows.append(SourceRow("DML rows /s", " + ".join(dml) or None, spec.DML_ORIGIN, ""))
    return rows


def pressure(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    have = set(reads.metric_names(server.pk))
    chosen, dml = spec.choose(spec.LINES, have), spec.dml_set(have)
    drawn, settings = [m for m in chosen.values() if m], [m for m in SETTINGS if m in have]
    found = reads.series_map(server.pk, list(dict.fromkeys(drawn + settings)), tr, points)  # one read for both
    dml_points, dml_note = dml_line(server.pk, dml, tr, points) if dml else (None, "")
    forces = settings_in_force(server.pk, settings, tr, {m: found[m] for m in settings if m in found})
    capacity = spec.redo_capacity({m: f.value for m, f in forces.items()})
    fig = pressure_figure(figure_lines(chosen, found, dml, dml_points),
                          (f"capacity: {capacity.origin}", capacity.bytes) if capacity else None,
                          server_marks(server.pk, tr.start, tr.end), (tr.start, tr.end))
    modules = spec.missing_modules(spec.LINES, chosen)
    return render(request, "dashboards/pressure.html", {
        **range_context(request, tr), "server": server, "tab": "pressure", "figures": {"pressure-chart": fig},
        "down": unreachable(server, tr),
        "sources": source_rows(chosen, dml), "enable": spec.missing_enables(spec.LINES, chosen),
        "enable_config": monitor_enable.option_line(modules), "enable_entries": ",".join(modules),
        "capacity": capacity, "capacity_was": capacity_change(forces), "dml_note": dml_note,
        "max_purge_lag": forces[spec.MAX_PURGE_LAG], "max_purge_delay": forces[spec.MAX_PURGE_DELAY],
        "csv": chart_csv(server.pk, drawn + list(dml), tr, points, collected=have),
    })
