"""Poll health: the latest state per server, and a bounded per-poll history."""

from datetime import timedelta

from django.db import models

from collectors.status import OK, UNAVAILABLE, status_of
from servers.models import Server
from store.breaks import GAP_FACTOR

HISTORY_SLOTS = 360  # polls kept per server (an hour at 10 s): a ring, so the table never grows


class ServerHealth(models.Model):
    """The newest poll outcome of one server, per source (the contract the UI reads)."""

    server = models.OneToOneField(Server, on_delete=models.CASCADE, related_name="health")
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.IntegerField(default=0)
    last_error = models.TextField(blank=True)
    # {source: {"status": collectors.results.STATUSES, "ok": bool, "error": str, "duration_ms": float, "at": ISO,
    #           "note": str, "worked": true once it ran ok here (collectors.record keeps it)}}
    sources = models.JSONField(default=dict, blank=True)
    polls = models.BigIntegerField(default=0)  # how many polls so far; picks the history slot
    last_duration_ms = models.FloatField(null=True, blank=True)
    last_lag_ms = models.FloatField(null=True, blank=True)  # start of the poll minus when it was due

    class Meta:
        verbose_name_plural = "server health"

    def __str__(self) -> str:
        return f"health of {self.server_id}"

    @property
    def failing_sources(self) -> list[tuple[str, str]]:
        """(source, error) of the sources whose last run failed; one that cannot run here is not failing."""
        return [(name, state.get("error", "")) for name, state in sorted((self.sources or {}).items())
                if status_of(state) not in (OK, *UNAVAILABLE)]


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


class TrxHolder(models.Model):
    """Who held the oldest open transaction of a server, from when to when (collectors.holders).

    An event, not a series: one row per holder, written when the oldest transaction changes.
    """

    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="trx_holders")
    thread_id = models.BigIntegerField()
    trx_key = models.CharField(max_length=120, help_text="thread/trx_id/trx_started as the server read them")
    user = models.CharField(max_length=128, blank=True)
    host = models.CharField(max_length=255, blank=True)
    state = models.CharField(max_length=100, blank=True)  # e.g. "RUNNING, Sleep"
    isolation = models.CharField(max_length=20, blank=True)
    statement = models.CharField(max_length=200, blank=True)
    idle = models.BooleanField(default=False, help_text="the statement is the last one, none was running")
    statement_missing = models.CharField(max_length=400, blank=True,
                                         help_text="why no statement could be read (e.g. a consumer off)")
    started_at = models.DateTimeField(help_text="the transaction's start: read time minus its age")
    seen_at = models.DateTimeField(help_text="the last poll that saw it the oldest")
    ended_at = models.DateTimeField(null=True, blank=True, help_text="the first poll that no longer saw it")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["server"], condition=models.Q(ended_at=None),
                                               name="trxholder_one_open")]
        indexes = [models.Index(fields=["server", "started_at"])]
        ordering = ["started_at"]

    def __str__(self) -> str:
        return f"thread {self.thread_id} on {self.server_id} since {self.started_at:%H:%M:%S}"

    def end_unseen(self, poll_interval: int) -> bool:
        """Whether its end was not observed: still open, or no poll within ~1.5 intervals of the last
        sight found it gone (an outage came between; store.breaks' measure of a hole)."""
        if self.ended_at is None:
            return True
        return self.ended_at - self.seen_at > timedelta(seconds=GAP_FACTOR * poll_interval)

    @property
    def who(self) -> str:
        return f"{self.user or '?'}@{self.host or '?'}" if self.user or self.host else "no client thread"
