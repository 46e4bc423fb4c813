"""The demo server's load, paused or resumed from its pages (as `manage.py demo pause|resume` does)."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from servers.models import Server
from workload.pause import demo_flag, set_paused

DEMO_TAG = "demo"  # the tag monitor.runtime.demo gives the server it registers


@require_POST
def demo_load(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=server_id)
    if DEMO_TAG not in server.tags:
        raise Http404("only the demo server's load can be paused here")
    action = request.POST.get("action")
    if action not in ("pause", "resume"):
        return HttpResponse("action must be pause or resume\n", status=400, content_type="text/plain")
    set_paused(demo_flag(), action == "pause")
    back = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()})
    return redirect(back if safe and back.startswith("/") else reverse("dashboards:stability", args=[server.pk]))
