"""Alert rules, the events they open and close, and the outbox of e-mails."""

from datetime import datetime, timedelta

from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from alerts import kind_wording, thresholds
from collectors import registry
from servers import crypto
from servers.models import Server
from servers.names import Printable, printable
from servers.time_bounds import within_bounds


class Rule(models.Model):
    THRESHOLD, GROWTH, SUSTAINED = kind_wording.THRESHOLD, kind_wording.GROWTH, kind_wording.SUSTAINED
    UNREACHABLE, SOURCE_FAILING = kind_wording.UNREACHABLE, kind_wording.SOURCE_FAILING
    REPLICA_LAG, REPLICA_STOPPED = kind_wording.REPLICA_LAG, kind_wording.REPLICA_STOPPED
    KINDS = [(key, label) for key, (label, _) in kind_wording.WORDING.items()]

    name = models.CharField(max_length=120, validators=[printable])  # it heads the e-mails and the Alerts page
    kind = models.CharField(max_length=20, choices=KINDS)
    # Printable: a family's name takes any suffix ("wait.time_ps:<anything>"), and it heads e-mails and pages.
    metric = models.CharField(max_length=255, blank=True, help_text="a name from docs/metrics.md",
                              validators=[Printable("The metric")])
    threshold = models.FloatField(default=0, help_text="X: the value, the growth, or the number of polls")
    window_minutes = models.FloatField(null=True, blank=True, help_text="W, for growth and sustained growth")
    source = models.CharField(max_length=60, blank=True, validators=[Printable("The source")],
                              help_text="source name; empty means any source")
    # Scope: one server, or every server carrying a tag, or (both empty) every server.
    server = models.ForeignKey(Server, null=True, blank=True, on_delete=models.CASCADE, related_name="alert_rules")
    tag = models.CharField(max_length=50, blank=True)
    recipients = ArrayField(models.EmailField(), default=list, blank=True)
    cooldown_minutes = models.FloatField(
        default=30, help_text="at most one firing e-mail per server within this time"
    )
    renotify_minutes = models.FloatField(default=0, help_text="remind while still firing; 0 = never")
    webhook_url = models.URLField(
        "webhook URL", max_length=500, blank=True,
        help_text="optional: firing and resolved events are also POSTed here as JSON (Slack-compatible 'text')")
    webhook_secret_encrypted = models.TextField(blank=True, editable=False)
    enabled = models.BooleanField(default=True)
    builtin = models.CharField(max_length=40, blank=True, help_text="key of a built-in rule")
    failing = models.TextField(blank=True, help_text="why its last evaluation failed (shown on the Alerts page)")
    failing_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["builtin"], condition=~Q(builtin=""), name="alerts_rule_one_builtin")
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """What no form may save: an X every reading is above (a history length at or below 0, a rate below 0)
        would fire at once, on every server; a source no poll reports would never fire."""
        problems = {}
        if problem := thresholds.threshold_problem(self.kind, self.metric, self.threshold):
            problems["threshold"] = problem
        if self.kind == self.SOURCE_FAILING and self.source and self.source not in registry.SOURCES:
            # a typo watched a source no poll reports: the rule never fired
            problems["source"] = (f"Unknown source '{self.source}': leave it empty for any source, or name one "
                                  f"of: {', '.join(registry.SOURCES)}.")
        if problems:
            raise ValidationError(problems)

    @property
    def scope_label(self) -> str:
        if self.server_id:
            return f"server {self.server.name}"
        return f"servers tagged {self.tag}" if self.tag else "all servers"

    @property
    def condition_text(self) -> str:
        return kind_wording.describe(self)

    @property
    def webhook_secret(self) -> str:
        return crypto.decrypt(self.webhook_secret_encrypted) if self.webhook_secret_encrypted else ""

    @webhook_secret.setter
    def webhook_secret(self, plain: str) -> None:
        self.webhook_secret_encrypted = crypto.encrypt(plain) if plain else ""


class Event(models.Model):
    """One stretch of time during which a rule's condition held on one server."""

    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="events")
    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="alert_events")
    key = models.CharField(max_length=100, blank=True, validators=[Printable("The key")],
                           help_text="what inside the server, e.g. the source name")
    # The admin edits these: a time it is given is checked against the bounds, as every user-given time is.
    since = models.DateTimeField(validators=[within_bounds],
                                 help_text="when the condition started to hold, as the data shows")
    opened_at = models.DateTimeField(validators=[within_bounds])
    resolved_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds],
                                       help_text="when the evaluation closed it")
    # Empty on events resolved before it was kept: their end is resolved_at, the evaluation's clock.
    ended_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds], help_text=(
        "when the condition stopped holding, as the data shows: the first poll at which it no longer held, "
        "or the last poll when the data stopped"))
    data_stopped = models.BooleanField(
        default=False, help_text="it ended because polls stopped: ended_at is the last poll")
    value = models.FloatField(null=True, blank=True)
    peak = models.FloatField(null=True, blank=True)
    growth = models.FloatField(null=True, blank=True)
    growth_span = models.CharField(max_length=40, blank=True,
                                   help_text="what the growth covers: the window, or less while the data is shorter")
    # Several lines by nature (a source's or a replica's error as the server gave it): tabs and line breaks are
    # kept, and only where the admin takes a detail is the rest (an escape, a bidi override) refused.
    detail = models.TextField(blank=True, validators=[Printable("The detail", free_text=True)])
    notified_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds],
                                       help_text="firing e-mail queued")
    last_notified_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds])

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["rule", "server", "key"], condition=Q(resolved_at=None), name="alerts_one_open_event"
            )
        ]

    def __str__(self) -> str:
        return f"{self.rule} on {self.server}"

    @property
    def firing(self) -> bool:
        return self.resolved_at is None

    @property
    def end(self) -> datetime | None:
        """When the condition stopped holding: from the data where known, else when it was resolved."""
        return self.ended_at or self.resolved_at

    @property
    def held_for(self) -> timedelta | None:
        return None if self.end is None else self.end - self.since


class Notification(models.Model):
    """The outbox: one e-mail or webhook call to make. Workers claim a row before sending it."""

    FIRING, REMINDER, RESOLVED, TEST = "firing", "reminder", "resolved", "test"
    KINDS = [(FIRING, "firing"), (REMINDER, "reminder"), (RESOLVED, "resolved"), (TEST, "test")]
    EMAIL, WEBHOOK = "email", "webhook"
    CHANNELS = [(EMAIL, "e-mail"), (WEBHOOK, "webhook")]

    event = models.ForeignKey(Event, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=10, choices=KINDS)
    channel = models.CharField(max_length=10, choices=CHANNELS, default=EMAIL)
    url = models.URLField(max_length=500, blank=True, help_text="the webhook's URL when queued")
    recipients = ArrayField(models.EmailField(), default=list, blank=True)
    context = models.JSONField(default=dict, blank=True, help_text="values as they were when queued")
    created_at = models.DateTimeField(validators=[within_bounds])
    next_attempt_at = models.DateTimeField(validators=[within_bounds])
    claimed_until = models.DateTimeField(null=True, blank=True, validators=[within_bounds])
    attempts = models.PositiveIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds])
    failed_at = models.DateTimeField(null=True, blank=True, validators=[within_bounds], help_text="gave up")
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=Q(sent_at=None, failed_at=None),
                         name="alerts_outbox_due")
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"

    @property
    def label(self) -> str:
        """What the Alerts page calls it: 'firing', or 'webhook firing'."""
        return f"webhook {self.kind}" if self.channel == self.WEBHOOK else self.kind

    @property
    def status(self) -> str:
        if self.sent_at:
            return "sent"
        if self.failed_at:
            return "failed"
        return "retrying" if self.attempts else "queued"
