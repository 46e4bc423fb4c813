"""Rule input, refused with a message that says what to change."""

import re
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from alerts import catalog, kinds
from alerts.models import Rule
from alerts.recipients import invalid
from alerts.webhook_targets import url_refusal
from servers.names import control_problem

PORT = re.compile(r":(\d+)$")


def port_in_range(url: str) -> None:
    """URLValidator accepts any digits as a port; a TCP port is 1-65535."""
    try:
        found = PORT.search(urlsplit(url).netloc)
    except ValueError:  # "Invalid IPv6 URL": the URL validator has said it is not a valid URL
        return
    if found and not 1 <= int(found.group(1)) <= 65535:
        raise ValidationError(f"port {found.group(1)} is not a TCP port: give one from 1 to 65535")


class WebhookUrlField(forms.URLField):
    """http and https only: in place of URLField's own validator (also ftp), not beside it, which said
    "Enter a valid URL." twice."""

    default_validators = [URLValidator(schemes=["http", "https"])]

    def validate(self, value: str) -> None:
        super().validate(value)
        if value:
            allowed_target(value)


def allowed_target(url: str) -> None:
    """Not a link-local, unspecified or multicast address nor a cloud metadata service (alerts.webhook_targets)."""
    why = url_refusal(url)
    if why:
        raise ValidationError(f"{why}. Give the address of a receiver on your network or the internet.")


class RecipientsField(forms.CharField):
    """E-mail addresses separated by commas, spaces or new lines."""

    widget = forms.Textarea(attrs={"rows": 2, "placeholder": "dba@example.com, oncall@example.com"})

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, list) else value

    def to_python(self, value) -> list[str]:
        """Each address once, as first written: a list pasted twice put every address twice in the To: line
        (2,000 times for a paste loop), which SMTP servers refuse as too many recipients."""
        seen: dict[str, str] = {}
        for address in re.split(r"[\s,;]+", super().to_python(value) or ""):
            if address:
                seen.setdefault(address.casefold(), address)
        return list(seen.values())

    def validate(self, value: list[str]) -> None:
        super().validate(value)
        bad = invalid(value)
        if bad:
            raise ValidationError(
                f"Not a valid e-mail address: {', '.join(repr(a) for a in bad)}. Write addresses like dba@example.com, "
                "separated by commas."
            )


class TestEmailForm(forms.Form):
    # %(value)r: the address as typed, quoted as the ALERT_RECIPIENTS problem names its own (the page escapes it)
    address = forms.EmailField(error_messages={
        "invalid": "Not a valid e-mail address: %(value)r. Write it like dba@example.com."})


class RuleForm(forms.ModelForm):
    recipients = RecipientsField(required=False, help_text="empty: the ALERT_RECIPIENTS setting")
    webhook_url = WebhookUrlField(
        label="Webhook URL", required=False, max_length=500, assume_scheme="https", validators=[port_in_range],
        help_text="optional: firing and resolved events are also POSTed here as JSON (a Slack incoming webhook works)")
    webhook_secret = forms.CharField(
        label="Webhook secret", required=False, max_length=200, widget=forms.PasswordInput(render_value=False),
        help_text="signs each call (X-SteadyState-Signature, docs/alerts.md); write-only: empty keeps the "
                  "stored one, '-' removes it")

    field_order = ["name", "kind", "metric", "threshold", "window_minutes", "source", "server", "tag", "recipients",
                   "webhook_url", "webhook_secret"]

    class Meta:
        model = Rule
        fields = ["name", "kind", "metric", "threshold", "window_minutes", "source", "server", "tag",
                  "recipients", "webhook_url", "cooldown_minutes", "renotify_minutes", "enabled"]
        labels = {"threshold": "X", "window_minutes": "W (minutes)", "source": "Source (source rules)",
                  "cooldown_minutes": "Cooldown (minutes)", "renotify_minutes": "Re-notify every (minutes)"}
        widgets = {"metric": forms.TextInput(attrs={"list": "metric-names", "size": 40})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["server"].empty_label = "all servers (or the tag)"
        if self.instance.builtin:
            self.fields["kind"].disabled = True  # built-ins keep their kind; disable instead of repurposing

    def save(self, commit: bool = True) -> Rule:
        secret = self.cleaned_data.get("webhook_secret") or ""
        if secret == "-" or not self.cleaned_data.get("webhook_url"):
            self.instance.webhook_secret = ""
        elif secret:
            self.instance.webhook_secret = secret
        return super().save(commit)

    def clean_window_minutes(self):
        window = self.cleaned_data.get("window_minutes")
        if window is not None and window <= 0:
            raise ValidationError(f"The window must be a positive number of minutes, not {window:g}.")
        if window is not None and window < MIN_WINDOW_MINUTES:
            # 1e-9 minutes was saved and judged a growth over no time at all
            raise ValidationError(f"The window must be at least 1 s ({MIN_WINDOW_MINUTES:.4f} minutes), not "
                                  f"{window:g} minutes: a growth needs two polls, at least 1 s apart.")
        return at_most_a_week(window, "The window")

    def clean_cooldown_minutes(self):
        return span_or_zero(self.cleaned_data.get("cooldown_minutes"), "The cooldown", "none")

    def clean_renotify_minutes(self):
        return span_or_zero(self.cleaned_data.get("renotify_minutes"), "The re-notify interval", "never")

    def clean(self):
        data = super().clean()
        kind = data.get("kind")
        if data.get("server") and data.get("tag"):
            self.add_error("tag", "Choose one server or one tag, not both.")
        rule_kind = kinds.KINDS.get(kind)
        if rule_kind is None:
            return data  # the choice field has said what is wrong
        if rule_kind.watches_metric:
            self.check_metric(data)
        else:
            data["metric"] = ""
        if rule_kind.needs_window and not data.get("window_minutes") and "window_minutes" in data:
            self.add_error("window_minutes", "Growth rules need a window W in minutes (e.g. 10).")
        if problem := rule_kind.check_threshold(data.get("threshold")):
            self.add_error("threshold", problem)
        return data

    def check_metric(self, data: dict) -> None:
        metric = (data.get("metric") or "").strip()
        data["metric"] = metric
        if problem := control_problem("The metric", metric):
            self.add_error("metric", f"{problem}.")  # the model's check, said before "Unknown metric"
        elif not metric:
            self.add_error("metric", f"This kind of rule watches a metric: name one, e.g. {catalog.EXAMPLES}.")
        elif "*" in metric:
            self.add_error("metric", f"A rule watches one metric, not a pattern: replace '*' in '{metric}' "
                                     "with the full name (see the Explorer for the names a server reports).")
        elif not catalog.is_known(metric):
            self.add_error("metric", f"Unknown metric '{metric}': use a name from docs/metrics.md "
                                     f"(e.g. {catalog.EXAMPLES}) or one your servers already report.")


# Minutes a window, cooldown or reminder may span: beyond, timedelta overflows (1e300 minutes
# made every evaluation of the rule fail) and a week is longer than any of them is useful for.
MAX_MINUTES = 7 * 24 * 60
MIN_WINDOW_MINUTES = 1 / 60  # 1 s: polls are at least that far apart, and a growth needs two


def at_most_a_week(value, label: str):
    if value is not None and value > MAX_MINUTES:
        raise ValidationError(f"{label} can be at most a week ({MAX_MINUTES} minutes), not {value:g}.")
    return value


def non_negative(value, label: str):
    if value is not None and value < 0:
        raise ValidationError(f"{label} cannot be negative ({value:g} minutes): use 0 or more.")
    return value


def span_or_zero(value, label: str, zero: str):
    """0 (`zero`: none, never), or from 1 s to a week: 1e-320 minutes was saved, a span timedelta rounds to 0."""
    value = at_most_a_week(non_negative(value, label), label)
    if value and value < MIN_WINDOW_MINUTES:
        raise ValidationError(f"{label} is 0 ({zero}) or at least 1 s ({MIN_WINDOW_MINUTES:.4f} minutes), not "
                              f"{value:.3g} minutes.")
    return value
