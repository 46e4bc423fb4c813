"""Server registry pages: list, add, edit, delete, and "Test connection"."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from collectors.pinning import Pin
from collectors.probe import check_server
from collectors.tls import VERIFYING
from dashboards.query_params import BadParam, page_number
from dashboards.server_form import ServerForm, twin_note
from dashboards.server_texts import tps_basis_of
from servers.models import Server

PER_PAGE = 100  # a fleet of 1,000 servers is ten pages, each answered as fast as a small fleet's


def server_list(request: HttpRequest) -> HttpResponse:
    servers = Server.objects.select_related("health")  # the collectors' latest poll outcome
    pages = Paginator(servers, PER_PAGE, allow_empty_first_page=True)
    try:
        page = pages.page(page_number(request.GET, pages.num_pages))
    except BadParam as error:
        return HttpResponseBadRequest(f"{error}\n", content_type="text/plain; charset=utf-8")
    for server in page.object_list:
        health = getattr(server, "health", None)
        server.tps_basis = tps_basis_of(server, health.sources if health else None)
    return render(request, "servers/list.html", {"servers": page.object_list, "page": page})


@sensitive_post_parameters("password")  # masked in error reports too
def server_add(request: HttpRequest) -> HttpResponse:
    return edit_form(request, Server())


@sensitive_post_parameters("password")
def server_edit(request: HttpRequest, pk: int) -> HttpResponse:
    return edit_form(request, get_object_or_404(Server, pk=pk))


def edit_form(request: HttpRequest, server: Server) -> HttpResponse:
    """GET shows the form; POST with action=test tests it, action=save tests then saves."""
    form = ServerForm(request.POST or None, instance=server)
    check = None
    if request.method == "POST" and form.is_valid():
        check = form.test_connection()
        if request.POST.get("action") == "save":
            if check.ok or request.POST.get("save_anyway"):
                twins = form.duplicates()
                saved = form.save(check=check)
                messages.success(request, f"Server '{saved.name}' saved.")
                if twins:
                    messages.warning(request, twin_note(saved, twins))
                return redirect("servers:list")
            form.add_error(None, not_saved_reason(check))
    return render(request, "servers/form.html", {"form": form, "server": server, "check": check,
                                                 "pinned": pinned_text(server)})


def pinned_text(server: Server) -> str:
    """What the stored password is pinned to, for the edit page."""
    if not server.pk:
        return ""
    pin = Pin.of(server)
    if not pin and (server.socket or server.tls_mode in VERIFYING):
        return "not needed: " + ("a unix socket" if server.socket else "the certificate is verified against the CA")
    if not pin:
        return ("nothing: the stored password is not sent to a TLS certificate or RSA key that is not pinned; "
                "type the password and test to pin what this server proves")
    return f"{pin.describe()}, since {server.pinned_at:%Y-%m-%d %H:%M} UTC"


def not_saved_reason(check) -> str:
    if not check.connected:
        return ("Not saved: the connection test failed (see below). Fix the address or credentials, "
                "or tick \"save even if the test fails\" to monitor a server that is down right now.")
    if not check.missing:
        return ("Not saved: the node_exporter URL gave no usable answer (see below). Fix the URL or leave it "
                "empty, or tick \"save even if the test fails\" if the agent is down right now.")
    return ("Not saved: the monitoring user lacks privileges the collectors need (see below). Run the GRANT, "
            "or tick \"save even if the test fails\" to monitor with what it may read.")


@require_POST
def server_test(request: HttpRequest, pk: int) -> HttpResponse:
    """Test a saved server with its stored credentials and record the detected flavor/version."""
    server = get_object_or_404(Server, pk=pk)
    check = check_server(server)
    if check.info:
        server.flavor, server.version = check.info.flavor, check.info.version
        server.save(update_fields=["flavor", "version"])
    return render(request, "servers/test.html", {"server": server, "check": check})


def server_delete(request: HttpRequest, pk: int) -> HttpResponse:
    server = get_object_or_404(Server, pk=pk)
    if request.method == "POST":
        server.delete()
        messages.success(request, f"Server '{server.name}' deleted, with its runs and annotations.")
        return redirect("servers:list")
    return render(request, "servers/confirm_delete.html", {"server": server})
