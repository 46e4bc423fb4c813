"""The server form: one validation for the page, the Django admin and `manage.py addserver`."""

import os

from django import forms
from django.contrib.postgres.forms import SimpleArrayField
from django.urls import reverse
from django.utils import timezone

from collectors import tls
from collectors.pinning import Pin
from collectors.probe import CheckResult, check_connection, check_node_exporter
from collectors.tls import TLS
from servers.models import Server

TLS_FILES = ("tls_ca", "tls_cert", "tls_key")
# One message for every bad port: the form field's own bound (0, a positive integer) and the model's (1) differed.
PORT_RANGE = "The port must be a number from 1 to 65535."
POLL_RANGE = "The interval must be a whole number of seconds (1 to 3600)."
STATEMENTS_RANGE = "The statements interval must be a whole number of seconds (10 to 3600)."


class TagsField(SimpleArrayField):
    """Comma-separated tags, as typed: spaces around a tag and empty items ("prod," or "a,,b") are dropped, where
    Django's array field refused them with "Item 2 in the array did not validate: This field is required"."""

    def to_python(self, value):
        if isinstance(value, str):
            value = ",".join(tag.strip() for tag in value.split(",") if tag.strip())
        return super().to_python(value)


class ServerForm(forms.ModelForm):
    """Add or edit a monitored server; the password is write-only.

    On edit an empty password keeps the stored one, so it never has to be shown back;
    but the stored password is only ever sent where it was stored for: changing the
    host, port, socket, user or TLS settings needs the password typed again.
    """

    # Rendered back only into the answer to the form's own POST (Test connection, a failed Save), so that
    # testing and then saving needs no retyping; an edit page (GET) never shows the stored one.
    password = forms.CharField(
        widget=forms.PasswordInput(render_value=True), required=False, strip=False,
        help_text="stored encrypted; leave empty on edit to keep the current one",
    )

    tags = TagsField(forms.CharField(max_length=50), required=False)
    node_exporter_url = forms.URLField(
        label="node_exporter URL", required=False, max_length=500, assume_scheme="http",
        help_text=Server._meta.get_field("node_exporter_url").help_text,
    )

    class Meta:
        model = Server
        fields = ["name", "host", "port", "socket", "user", "password", "tls_mode", "tls_ca", "tls_cert", "tls_key",
                  "tags", "poll_interval", "statements_interval", "node_exporter_url", "enabled"]
        error_messages = {
            "name": {"unique": "A server with this name already exists: choose another name."},
            "port": {code: PORT_RANGE for code in ("invalid", "min_value", "max_value")},
            # One message for every way out of range: Django's own named 0 for -3 (the field is positive).
            "poll_interval": {code: POLL_RANGE for code in ("invalid", "min_value", "max_value")},
            "statements_interval": {code: STATEMENTS_RANGE for code in ("invalid", "min_value", "max_value")},
        }
        help_texts = {
            "host": "host name or IP; leave empty when you give a socket",
            "socket": "unix socket path, for a server on this machine (used instead of host and port)",
            "tags": "comma-separated, e.g. prod,replica",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["poll_interval"].label = "Poll interval (seconds)"
        self.fields["statements_interval"].label = "Statements interval (seconds)"
        self.fields["statements_interval"].required = False  # not given: the model's default (60 s)
        self.fields["tls_mode"].required = False  # not given: preferred, as before TLS modes existed
        # Where the stored password was stored for, before this form changes the instance.
        self.stored_destination = self.instance.destination() if self.instance.pk else None
        self.fields["port"].widget.attrs.update(min=1, max=65535)
        if not self.instance.pk:
            self.fields["password"].help_text = "stored encrypted, never shown again"

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise forms.ValidationError("Give the server a name.")
        return name

    def duplicates(self) -> list[Server]:
        """Other servers registered at the same host and port (or socket): saved, but said."""
        data = self.cleaned_data
        same = Server.objects.exclude(pk=self.instance.pk)
        if data.get("socket"):
            return list(same.filter(socket=data["socket"]))
        return list(same.filter(host=data.get("host"), port=data.get("port") or 3306, socket=""))

    def clean_host(self) -> str:
        return self.cleaned_data["host"].strip()

    def clean_socket(self) -> str:
        return self.cleaned_data["socket"].strip()

    def clean_statements_interval(self) -> int:
        value = self.cleaned_data.get("statements_interval")
        return Server._meta.get_field("statements_interval").default if value is None else value

    def clean_tls_mode(self) -> str:
        return self.cleaned_data["tls_mode"] or tls.PREFERRED

    def clean_tls_ca(self) -> str:
        return readable_file(self.cleaned_data["tls_ca"])

    def clean_tls_cert(self) -> str:
        return readable_file(self.cleaned_data["tls_cert"])

    def clean_tls_key(self) -> str:
        return readable_file(self.cleaned_data["tls_key"])

    def clean(self) -> dict:
        data = super().clean()
        if "host" in data and "socket" in data and not data["host"] and not data["socket"]:
            self.add_error("host", "Give a host (and port), or a socket path: both are empty.")
        stored = bool(self.instance.pk and self.instance.password)
        if not data.get("password") and not data.get("socket") and not stored:
            self.add_error("password", "Give the monitoring user's password (only a socket login, such as MariaDB's "
                           "unix_socket authentication, may go without one).")
        elif not data.get("password") and stored and self.destination_changed(data):
            self.add_error("password", "You changed where or how this server is reached (host, port, socket, user "
                           "or TLS): type the password again. The stored one is only sent where it was stored for.")
        if data.get("tls_key") and not data.get("tls_cert"):
            self.add_error("tls_cert", "A client key needs its client certificate.")
        return data

    def destination_changed(self, data: dict) -> bool:
        if self.stored_destination is None:
            return True
        typed = tuple(data.get(name, "") for name in Server.DESTINATION)
        return typed != self.stored_destination

    def tls(self) -> TLS:
        data = self.cleaned_data
        return TLS(data.get("tls_mode") or tls.PREFERRED, *(data.get(name, "") for name in TLS_FILES))

    def connection_kwargs(self) -> dict:
        """Where and how to connect, from the form; the stored password only to its own destination."""
        data = self.cleaned_data
        password = data.get("password")
        typed = bool(password)  # the user chose to send it: it may go to what the server proves, then pinned
        if not password and not self.destination_changed(data):
            password = self.instance.password
        return {
            "host": data["host"], "port": data.get("port") or 3306, "socket": data["socket"],
            "user": data["user"], "password": password or "", "tls": self.tls(),
            "pin": Pin.of(self.instance), "trust_new": typed,
        }

    def test_connection(self) -> CheckResult:
        result = check_connection(**self.connection_kwargs())
        return check_node_exporter(result, self.cleaned_data.get("node_exporter_url", ""))

    def save(self, commit: bool = True, check: CheckResult | None = None) -> Server:
        server = super().save(commit=False)
        if self.cleaned_data.get("password"):
            server.password = self.cleaned_data["password"]
            pin_proof(server, check)
        if check and check.info:
            server.flavor, server.version = check.info.flavor, check.info.version
        if commit:
            server.save()
        return server


def twin_note(server: Server, twins: list[Server]) -> str:
    """What the page and `addserver` say on saving a server at an address already registered ('' with no twin):
    the enabled twins, with how often the address is now polled, and the disabled ones, named apart with where
    to resume them: a second entry splits the server's history in two."""
    live = [t for t in twins if t.enabled]
    paused = [t for t in twins if not t.enabled]
    said = []
    if live:
        said.append(f"'{server.name}' is the same MySQL server as {', '.join(repr(t.name) for t in live)} "
                    f"(same address){polled_times(server, live)}.")
    if paused:
        where = ", ".join(f"'{t.name}' (disabled: {reverse('servers:edit', args=[t.pk])})" for t in paused)
        said.append(f"{where} {'is' if len(paused) == 1 else 'are'} this address too: to keep one history of "
                    f"the server, resume {'it' if len(paused) == 1 else 'one'} there (tick Enabled) rather than "
                    "keep two entries of it.")
    return " ".join(said)


def polled_times(server: Server, live: list[Server]) -> str:
    """How often the address is polled, counting the enabled entries only: '' when once or never."""
    polled = sum(s.enabled for s in (server, *live))
    return "" if polled < 2 else ": it is polled twice" if polled == 2 else f": it is polled {polled} times"


def pin_proof(server: Server, check: CheckResult | None) -> None:
    """With a typed password, pin what the server proved in a successful test (nothing otherwise)."""
    proof = check.proof if check and check.connected else Pin()
    server.pinned_kind, server.pinned_sha256, server.pinned_key = proof.kind, proof.sha256, proof.key
    server.pinned_at = timezone.now() if proof else None


PEM_PROBE = 64 * 1024  # bytes read to find a PEM block: certificates and keys begin within it


def readable_file(path: str) -> str:
    """A TLS file path as typed, checked to be a PEM file this process can read (empty: none).

    Missing, unreadable and not PEM are one answer: the field must not tell which files exist on the host.
    """
    path = path.strip()
    if path and not is_pem_file(path):
        raise forms.ValidationError(f"{path}: no such file, or not readable by SteadyState, or not PEM "
                                    "(a certificate or key beginning with -----BEGIN).")
    return path


def is_pem_file(path: str) -> bool:
    try:
        if not os.path.isfile(path):  # no FIFO or device: reading one could block or never end
            return False
        with open(path, "rb") as f:
            return b"-----BEGIN " in f.read(PEM_PROBE)
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return False
