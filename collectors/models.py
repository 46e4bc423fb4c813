"""Poll health: the latest state per server, and a bounded per-poll history."""

from django.db import models

from monitor.models import Server

HISTORY_SLOTS = 360  # polls kept per server (an hour at 10 s): a ring, so the table never grows


class ServerHealth(models.Model):
    """The newest poll outcome of one server, per source (the contract the UI reads)."""

    server = models.OneToOneField(Server, on_delete=models.CASCADE, related_name="health")
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.IntegerField(default=0)
    last_error = models.TextField(blank=True)
    # {source: {"ok": bool, "error": str, "duration_ms": float, "at": ISO, "note": str}}
    sources = models.JSONField(default=dict, blank=True)
    polls = models.BigIntegerField(default=0)  # how many polls so far; picks the history slot
    last_duration_ms = models.FloatField(null=True, blank=True)
    last_lag_ms = models.FloatField(null=True, blank=True)  # start of the poll minus when it was due

    class Meta:
        verbose_name_plural = "server health"

    def __str__(self) -> str:
        return f"health of {self.server_id}"


class PollRecord(models.Model):
    """One poll of one server; slot = poll number modulo HISTORY_SLOTS, overwritten in turn."""

    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="poll_records")
    slot = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    due_at = models.DateTimeField(null=True, blank=True)
    lag_ms = models.FloatField(null=True, blank=True)
    duration_ms = models.FloatField()
    ok = models.BooleanField()
    error = models.TextField(blank=True)
    sources = models.JSONField(default=dict)  # {source: {"ok", "error", "duration_ms"}}

    class Meta:
        constraints = [models.UniqueConstraint(fields=["server", "slot"], name="pollrecord_server_slot")]
        indexes = [models.Index(fields=["server", "started_at"])]
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"poll of {self.server_id} at {self.started_at:%H:%M:%S}"
