"""The Scalability page: TPS against client threads, one line per sweep or configuration."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from dashboards.figures.scalability import cpu_figure, tps_figure, waits_figure
from dashboards.query_params import BadParam, knee_threshold, sweep_name
from dashboards.reports.scalability import study, sweeps
from dashboards.server_texts import BASIS_SERIES, counted_basis, tps_bases, waits_note
from dashboards.views.common import TPS_DEFINITION
from dashboards.window_reads import runs_sums
from servers.models import Run
from servers.names import control_problem

LABEL_LIMIT = Run._meta.get_field("label").max_length


def study_context(request: HttpRequest) -> tuple[dict, int]:
    """The page's (or report's) context and status: a bad selection is a 400 with the picker and the reason."""
    context = {"sweeps": sweeps(), "picked": request.GET.getlist("sweep"), "tps_definition": TPS_DEFINITION,
               "knee": request.GET.get("knee", "")}
    if not request.GET.getlist("sweep") and not request.GET.get("runs"):
        try:  # the form keeps the knee given: one it cannot use is said now, not when a sweep is picked
            knee_threshold(request.GET)
        except BadParam as error:
            return {**context, "error": str(error)}, 400
        return context, 200
    try:
        found = study(request.GET)
    except BadParam as error:
        return {**context, "error": str(error)}, 400
    context.update(study=found, knee=f"{found.threshold * 100:g}", bases=curve_bases(found),
                   waits_notes=curve_waits_notes(found), figures={
        "chart-scalability": tps_figure(found.curves, [section["fit"] for section in found.sections]),
        "chart-scalability-waits": waits_figure(found.curves, found.events),
    } | ({"chart-scalability-cpu": cpu_figure(found.curves)} if found.host else {}))
    return context, 200


def curve_bases(found) -> list[tuple[str, object]]:
    """(where, what its TPS counts) for each curve drawn, as its steps' own polls counted it (the server's
    latest polls where none of them says), per step where they differ: a sweep on a server that counts explicit
    transactions only reads 0 TPS under an autocommit load, and one counted otherwise keeps its words after."""
    levels = [lv for curve in found.curves for lv in curve.levels]
    latest = tps_bases(list({lv.run.server_id for lv in levels}))
    sums = runs_sums([lv.run for lv in levels], BASIS_SERIES, {lv.run.pk: lv.window for lv in levels})
    out: list[tuple[str, object]] = []
    for curve in found.curves:
        steps = [(lv.concurrency, counted_basis(sums.get(lv.run.pk, {}), latest.get(lv.run.server_id)))
                 for lv in curve.levels]
        where = f"{', '.join(sorted({lv.run.server.name for lv in curve.levels}))} ({curve.name})"
        kinds = {basis.short for _c, basis in steps if basis}
        if len(kinds) == 1 and all(basis for _c, basis in steps):
            out.append((where, steps[0][1]))
        else:
            out += [(f"{where} at {c} thread{'s' * (c != 1)}", basis) for c, basis in steps if basis]
    return out


def curve_waits_notes(found) -> list[tuple[str, str]]:
    """(curve, note) for each curve whose levels' polls found wait instruments off (MariaDB's defaults turn every
    wait/synch instrument off): its waits per transaction and the wait that grows leave those out."""
    notes = []
    for curve in found.curves:
        if curve.levels:
            first, last = curve.levels[0], curve.levels[-1]
            if note := waits_note(first.run.server_id, first.window.start, last.window.end):
                notes.append((curve.name, note))
    return notes


@require_http_methods(["GET", "POST"])
def scalability(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        return label_sweep(request)
    context, status = study_context(request)
    return render(request, "dashboards/scalability.html", context, status=status)


def refused(request: HttpRequest, error: str) -> HttpResponse:
    """The page with the reason, a 400: text PostgreSQL refuses (a NUL byte) must never reach it."""
    context, _status = study_context(request)
    return render(request, "dashboards/scalability.html", {**context, "error": error}, status=400)


def label_sweep(request: HttpRequest) -> HttpResponse:
    """What differed in a sweep's configuration, entered by hand: set on every step of the sweep."""
    name, label = request.POST.get("sweep", ""), request.POST.get("label", "").strip()
    try:
        sweep_name(name)
    except BadParam as error:
        return refused(request, str(error))
    if not name.strip():  # the runs outside any sweep have sweep "": a blank name would label them all
        return refused(request, "No sweep given: pick a sweep from the list to label its steps.")
    if "\x00" in label:
        return refused(request, "label holds a NUL byte, which cannot be stored: remove it")
    if problem := control_problem("A label", label):  # the model's validator, which update() skips
        return refused(request, f"{problem}.")
    if len(label) > LABEL_LIMIT:
        messages.error(request, f"A label is at most {LABEL_LIMIT} characters.")
    elif Run.objects.filter(sweep=name).update(label=label):
        messages.success(request, f"Sweep “{name}” labelled “{label}”." if label else f"Label of “{name}” removed.")
    else:
        messages.error(request, f"No sweep named “{name}”.")
    return redirect(request.get_full_path())
