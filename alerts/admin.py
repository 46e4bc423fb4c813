from django import forms
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


class NotificationForm(forms.ModelForm):
    class Meta:
        model = Notification
        fields = "__all__"

    def clean_context(self):
        # An empty box (or "null") is None, which the NOT NULL column refused with a 500: no values is {}.
        context = self.cleaned_data.get("context")
        return {} if context is None else context


@admin.register(Notification)
class NotificationAdmin(ParsedInitialAdmin):
    form = NotificationForm
    list_display = ["id", "kind", "event", "created_at", "sent_at", "failed_at", "attempts", "last_error"]
    list_filter = ["kind"]
