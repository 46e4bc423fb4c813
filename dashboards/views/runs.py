"""Runs and annotations: list them, mark new ones from the page."""

from dataclasses import replace

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from dashboards.analysis.step_window import run_window
from dashboards.forms import AnnotationForm, RunForm
from dashboards.links import run_statements
from dashboards.query_params import BadParam, page_number, runs_sort, server_param, sort_problem
from dashboards.reads import run_statements_through
from dashboards.reports.run_table import DEFAULT_SORT, SORTS, RunLine, run_lines
from dashboards.server_texts import BASIS_SERIES, counted_basis, tps_bases
from dashboards.views.common import with_params
from dashboards.window_reads import runs_sums
from servers.models import Annotation, Run, Server

LISTED = 200
# The sortable columns of the runs table: (heading, ?sort= key).
COLUMNS = [("name", "name"), ("server", "server"), ("started (UTC)", "started"), ("threads", "concurrency"),
           ("sweep", "sweep"), ("label", "label"), ("avg TPS", "tps")]


def sort_links(get, sort: str) -> list[dict]:
    """Each heading links to its sort, reversed when it is the current one."""
    out = []
    for heading, key in COLUMNS:
        current = sort.lstrip("-") == key
        target = key if current and sort.startswith("-") else f"-{key}" if current or key == "tps" else key
        arrow = ("▼" if sort.startswith("-") else "▲") if current else ""
        out.append({"heading": heading, "link": with_params(get, ("page",), sort=target), "arrow": arrow})
    return out


def runs(request: HttpRequest) -> HttpResponse:
    server_id, picked = server_param(request.GET)
    run_form = RunForm(prefix="run", initial={"started_at": timezone.now(), "server": server_id or None})
    note_form = AnnotationForm(prefix="note", initial={"at": timezone.now(), "server": server_id or None})
    if request.method == "POST":
        if "run-name" in request.POST:
            run_form = RunForm(request.POST, prefix="run")
            if run_form.is_valid():
                run = run_form.save()
                messages.success(request, f"Run “{run.name}” marked on {run.server}.")
                return redirect(request.get_full_path())
        else:
            note_form = AnnotationForm(request.POST, prefix="note")
            if note_form.is_valid():
                note = note_form.save()
                messages.success(request, f"Annotation “{note.text}” added.")
                return redirect(request.get_full_path())
    run_list = Run.objects.select_related("server")
    notes = Annotation.objects.select_related("server", "run").order_by("-at")
    if picked is not None:
        run_list = run_list.filter(server_id=picked)
        notes = notes.filter(server_id=picked)
    problem = server_problem(server_id, picked)
    sort = runs_sort(request.GET, SORTS, DEFAULT_SORT)
    count = run_list.count()
    pages = max(1, -(-count // LISTED))
    try:
        number = page_number(request.GET, pages)
    except BadParam as error:
        return HttpResponseBadRequest(f"{error}\n", content_type="text/plain; charset=utf-8")
    offset = (number - 1) * LISTED
    return render(request, "dashboards/runs.html", {
        "lines": with_statements(with_bases(run_lines(run_list, sort, LISTED, offset))), "notes": notes[:LISTED],
        "pager": {"number": number, "first": offset + 1, "last": min(offset + LISTED, count), "count": count,
                  "links": [(n, with_params(request.GET, page=n)) for n in range(1, pages + 1)]} if pages > 1 else None,
        "run_form": run_form, "note_form": note_form, "server_id": server_id, "columns": sort_links(request.GET, sort),
        "runs_csv": reverse("export-runs") + with_params(request.GET), "server_problem": problem,
        "sort_problem": sort_problem(request.GET, SORTS, DEFAULT_SORT),
    })


def with_bases(lines: list[RunLine]) -> list[RunLine]:
    """Each line with what TPS counted over its run's polls (its server's latest polls where none says): 0.0
    under an autocommit load is no dip when only explicit transactions are counted."""
    latest = tps_bases(list({ln.run.server_id for ln in lines}))
    windows = {ln.run.pk: run_window(ln.run, ln.warmup.seconds) for ln in lines}
    sums = runs_sums([ln.run for ln in lines], BASIS_SERIES, windows)
    return [replace(ln, basis=counted_basis(sums.get(ln.run.pk, {}), latest.get(ln.run.server_id)))
            for ln in lines]


def with_statements(lines: list[RunLine]) -> list[RunLine]:
    """Each line with its Statements tab link, through the digest read that holds the run's end (its last
    seconds are in that read)."""
    through = run_statements_through([ln.run for ln in lines])
    return [replace(ln, statements=run_statements(ln.run.server_id, ln.run.started_at, through.get(ln.run.pk)))
            for ln in lines]


def server_problem(raw: str, picked: int | None) -> str | None:
    """What is wrong with ?server=, said on the page (its CSV answers 400 for the same)."""
    if raw and picked is None:
        return f"server={raw!r} is not a server id: the runs of every server are listed."
    if picked is not None and not Server.objects.filter(pk=picked).exists():
        return f"There is no server {picked}."
    return None
