"""Admin: see and revoke API tokens (they are made on /tokens/, where the raw value is shown once)."""

from django.contrib import admin

from dashboards.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "hint", "created_at", "last_used_at"]
    list_filter = ["user"]
    readonly_fields = ["user", "name", "hint", "created_at", "last_used_at"]

    def has_add_permission(self, request) -> bool:
        return False  # a raw token must be shown once to its owner: /tokens/
