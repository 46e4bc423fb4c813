from django.contrib import admin

from alerts.forms import RuleForm
from alerts.models import Event, Notification, Rule
from servers.admin_initial import ParsedInitialAdmin


@admin.register(Rule)
class RuleAdmin(ParsedInitialAdmin):
    form = RuleForm  # the Alerts page's checks: a pattern, a negative window or cooldown would never fire
    list_display = ["name", "kind", "metric", "threshold", "window_minutes", "server", "tag", "enabled", "builtin"]
    list_filter = ["kind", "enabled"]


@admin.register(Event)
class EventAdmin(ParsedInitialAdmin):
    list_display = ["rule", "server", "key", "since", "opened_at", "resolved_at", "value", "peak"]
    list_filter = ["rule"]


@admin.register(Notification)
class NotificationAdmin(ParsedInitialAdmin):
    list_display = ["id", "kind", "event", "created_at", "sent_at", "failed_at", "attempts", "last_error"]
    list_filter = ["kind"]
