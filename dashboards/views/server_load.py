"""The Servers page's "Load a collection file" and "Import a run file": `manage.py load` and
`import_run` from the browser (docs/collect.md)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from collectors import collect_file
from collectors.replay import LoadError, load
from dashboards.reports.run_file import RunFileError, import_file

MAX_UPLOAD = 512 * 1024 * 1024  # bytes; larger files go through `manage.py load` on the host


def server_load(request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: load the file as the named server, or say why not (400, nothing stored)."""
    if request.method != "POST":
        return render(request, "servers/load.html", {})
    name, upload = request.POST.get("name", ""), request.FILES.get("file")
    error = name_problem(name) or file_problem(upload, "a collection file written by manage.py collect")
    if error is None:
        try:
            report = load(upload.read(), name, upload.name, partial=request.POST.get("partial") == "on")
        except (LoadError, collect_file.CollectionFileError) as exc:
            error = str(exc)
    if error is not None:
        return render(request, "servers/load.html", {"error": error, "name": name}, status=400)
    for line in report.lines():
        messages.success(request, line)
    return redirect("dashboards:stability", server_id=report.server.id)


def run_import(request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: import a run file (optionally under another server name), or say why not (400)."""
    if request.method != "POST":
        return render(request, "servers/import_run.html", {})
    name, upload = request.POST.get("name", ""), request.FILES.get("file")
    error = file_problem(upload, "a run file written by manage.py export_run or a run report's link")
    if error is None:
        try:
            done = import_file(upload.read(), upload.name, name.strip())
        except RunFileError as exc:
            error = str(exc)
    if error is not None:
        return render(request, "servers/import_run.html", {"error": error, "name": name}, status=400)
    for line in done.lines():
        messages.success(request, line)
    return redirect("run-report", run_id=done.runs[0].id) if done.runs else redirect("servers:list")


def name_problem(name: str) -> str | None:
    if name.strip() and name.isprintable():
        return None
    return "name: give the server a name (1 to 100 printable characters) to load the file as"


def file_problem(upload, wanted: str) -> str | None:
    if upload is None:
        return f"file: choose {wanted}"
    if upload.size > MAX_UPLOAD:
        return (f"file: {upload.size / 2**20:.0f} MB is more than this page takes ({MAX_UPLOAD / 2**20:.0f} MB): "
                "use the command line on the SteadyState host (docs/collect.md)")
    return None
