"""The server form: one validation for the page, the Django admin and `manage.py addserver`."""

from django import forms

from monitor.connection_probe import CheckResult, check_connection
from monitor.models import Server


class ServerForm(forms.ModelForm):
    """Add or edit a monitored server; the password is write-only.

    On edit an empty password keeps the stored one, so it never has to be shown back.
    """

    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False), required=False, strip=False,
        help_text="stored encrypted; leave empty on edit to keep the current one",
    )

    class Meta:
        model = Server
        fields = ["name", "host", "port", "socket", "user", "password", "tags", "poll_interval", "enabled"]
        error_messages = {
            "name": {"unique": "A server with this name already exists: choose another name."},
            "port": {"invalid": "The port must be a number from 1 to 65535."},
            "poll_interval": {"invalid": "The interval must be a whole number of seconds (1 to 3600)."},
        }
        help_texts = {
            "host": "host name or IP; leave empty when you give a socket",
            "socket": "unix socket path, for a server on this machine (used instead of host and port)",
            "tags": "comma-separated, e.g. prod,replica",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["poll_interval"].label = "Poll interval (seconds)"
        if not self.instance.pk:
            self.fields["password"].help_text = "stored encrypted, never shown again"

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give the server a name.")
        return name

    def clean_host(self) -> str:
        return self.cleaned_data["host"].strip()

    def clean_socket(self) -> str:
        return self.cleaned_data["socket"].strip()

    def clean(self) -> dict:
        data = super().clean()
        if "host" in data and "socket" in data and not data["host"] and not data["socket"]:
            self.add_error("host", "Give a host (and port), or a socket path: both are empty.")
        if not self.instance.pk and not data.get("password"):
            self.add_error("password", "Give the monitoring user's password.")
        return data

    def connection_kwargs(self) -> dict:
        """Where and how to connect, from the form (the stored password if none was typed)."""
        data = self.cleaned_data
        return {
            "host": data["host"], "port": data.get("port") or 3306, "socket": data["socket"],
            "user": data["user"], "password": data.get("password") or self.instance.password,
        }

    def test_connection(self) -> CheckResult:
        return check_connection(**self.connection_kwargs())

    def save(self, commit: bool = True, check: CheckResult | None = None) -> Server:
        server = super().save(commit=False)
        if self.cleaned_data.get("password"):
            server.password = self.cleaned_data["password"]
        if check and check.info:
            server.flavor, server.version = check.info.flavor, check.info.version
        if commit:
            server.save()
        return server
