"""Admin: servers (the password write-only), runs and annotations; API tokens to see and revoke.

Tokens are made on /tokens/, where the raw value is shown once.
"""

from django.contrib import admin

from dashboards.models import ApiToken
from dashboards.server_form import ServerForm
from servers.admin_initial import ParsedInitialAdmin
from servers.models import Annotation, Run, Server


@admin.register(ApiToken)
class ApiTokenAdmin(ParsedInitialAdmin):
    list_display = ["name", "user", "hint", "created_at", "last_used_at"]
    list_filter = ["user"]
    readonly_fields = ["user", "name", "hint", "created_at", "last_used_at"]

    def has_add_permission(self, request) -> bool:
        return False  # a raw token must be shown once to its owner: /tokens/



@admin.register(Server)
class ServerAdmin(ParsedInitialAdmin):
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
class RunAdmin(ParsedInitialAdmin):
    list_display = ["name", "server", "started_at", "ended_at"]
    list_filter = ["server"]
    search_fields = ["name", "notes"]
    date_hierarchy = "started_at"


@admin.register(Annotation)
class AnnotationAdmin(ParsedInitialAdmin):
    list_display = ["at", "server", "run", "text"]
    list_filter = ["server"]
    search_fields = ["text"]
