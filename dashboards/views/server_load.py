"""The Servers page's "Load a collection file": `manage.py load` from the browser (docs/collect.md)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from collectors import collect_file
from collectors.replay import LoadError, load

MAX_UPLOAD = 512 * 1024 * 1024  # bytes; larger files go through `manage.py load` on the host


def server_load(request: HttpRequest) -> HttpResponse:
    """GET: the form; POST: load the file as the named server, or say why not (400, nothing stored)."""
    if request.method != "POST":
        return render(request, "servers/load.html", {})
    name, upload = request.POST.get("name", ""), request.FILES.get("file")
    error = problem(name, upload)
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


def problem(name: str, upload) -> str | None:
    if not name.strip():
        return "name: give the server a name (1 to 100 characters) to load the file as"
    if upload is None:
        return "file: choose a collection file written by manage.py collect"
    if upload.size > MAX_UPLOAD:
        return (f"file: {upload.size / 2**20:.0f} MB is more than this page takes ({MAX_UPLOAD / 2**20:.0f} MB): "
                "load it on the SteadyState host with python manage.py load FILE --as NAME")
    return None
