"""Per-server InnoDB pressure page: redo, buffer pool, flushing, row locks, purge against DML, DML delay."""

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from dashboards import reads
from dashboards.analysis import pressure as spec
from dashboards.figures.pressure import pressure_figure
from dashboards.marks import server_marks
from dashboards.views.common import chart_csv, page_range, range_context
from monitor.models import Server

LATEST = [spec.MAX_AGE, spec.REDO_CAPACITY, spec.LOG_FILE_SIZE, spec.LOG_FILES, spec.MAX_PURGE_LAG,
          spec.MAX_PURGE_DELAY]


@dataclass(frozen=True)
class SourceRow:
    """One line of the "where each series comes from" table."""

    label: str
    metric: str | None
    origin: str
    enable: str


def latest_values(server_id: int) -> dict[str, float | None]:
    found = reads.store().latest([server_id], LATEST)
    return {metric: found[(server_id, metric)][1] if (server_id, metric) in found else None for metric in LATEST}


def figure_lines(chosen: dict, found: dict, dml: tuple[str, ...]) -> list[tuple]:
    lines = []
    for line in spec.LINES:
        metric = chosen[line.key]
        if metric and metric in found:
            scale = 1 / spec.MB if line.row == 1 else 1.0
            lines.append((line.row, line.label, found[metric], scale))
    if dml and all(m in found for m in dml):
        lines.append((5, f"DML rows /s ({' + '.join(dml)})", spec.summed([found[m] for m in dml]), 1.0))
    return lines


def source_rows(chosen: dict, dml: tuple[str, ...]) -> list[SourceRow]:
    rows = [SourceRow(line.label, chosen[line.key], line.origin, "" if chosen[line.key] else line.enable)
            for line in spec.LINES]
    rows.append(SourceRow("DML rows /s", " + ".join(dml) or None, spec.DML_ORIGIN, ""))
    return rows


def pressure(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    tr, points = page_range(request)
    have = set(reads.store().metric_names(server.pk))
    chosen, dml = spec.choose(spec.LINES, have), spec.dml_set(have)
    metrics = [m for m in chosen.values() if m] + list(dml)
    found = reads.series_map(server.pk, metrics, tr, points)
    latest = latest_values(server.pk)
    capacity = spec.redo_capacity(latest)
    fig = pressure_figure(figure_lines(chosen, found, dml),
                          (f"capacity: {capacity.origin}", capacity.bytes) if capacity else None,
                          server_marks(server.pk, tr.start, tr.end))
    return render(request, "dashboards/pressure.html", {
        **range_context(request, tr), "server": server, "tab": "pressure", "figures": {"pressure-chart": fig},
        "sources": source_rows(chosen, dml), "enable": spec.missing_enables(spec.LINES, chosen),
        "capacity": capacity, "max_purge_lag": latest[spec.MAX_PURGE_LAG],
        "max_purge_delay": latest[spec.MAX_PURGE_DELAY], "csv": chart_csv(server.pk, metrics, tr, points),
    })
