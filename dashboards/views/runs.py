"""Runs and annotations: list them, mark new ones from the page."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from dashboards.forms import AnnotationForm, RunForm
from monitor.models import Annotation, Run

LISTED = 200


def runs(request: HttpRequest) -> HttpResponse:
    server_id = request.GET.get("server", "")
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
    if server_id.isdigit():
        run_list = run_list.filter(server_id=server_id)
        notes = notes.filter(server_id=server_id)
    return render(request, "dashboards/runs.html", {
        "runs": run_list[:LISTED], "notes": notes[:LISTED], "run_form": run_form, "note_form": note_form,
        "server_id": server_id,
    })
