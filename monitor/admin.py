"""Servers, runs and annotations in the Django admin; the server password is write-only."""

from django.contrib import admin

from monitor.forms import ServerForm
from monitor.models import Annotation, Run, Server


@admin.register(Server)
class ServerAdmin(admin.ModelAdmin):
    # The same form as our page: an empty password on edit keeps the stored one
    # (unless host, port, socket, user or TLS changed: then it must be typed again),
    # and the encrypted column is never rendered.
    form = ServerForm
    list_display = ["name", "address", "user", "tls_mode", "poll_interval", "enabled", "flavor", "version",
                    "node_exporter_url"]
    list_filter = ["enabled", "flavor"]
    search_fields = ["name", "host", "socket"]
    readonly_fields = ["flavor", "version", "created_at"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "server", "started_at", "ended_at"]
    list_filter = ["server"]
    search_fields = ["name", "notes"]
    date_hierarchy = "started_at"


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ["at", "server", "run", "text"]
    list_filter = ["server"]
    search_fields = ["text"]
