"""The registry: monitored servers, runs and annotations (the bottom layer every app reads)."""

import re
from datetime import datetime
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from servers import crypto
from servers import tls_modes as tls
from servers.address_rules import agent_url_allowed
from servers.names import Printable, printable, printable_text
from servers.time_bounds import UtcDateTimeField, bounded, within_bounds


class Server(models.Model):
    FLAVORS = [("mysql", "MySQL"), ("mariadb", "MariaDB"), ("", "unknown")]

    name = models.CharField(max_length=100, unique=True, validators=[printable])
    # One line each: they go to the connection, the pages, fleet.csv and the e-mails.
    host = models.CharField(max_length=255, blank=True, validators=[Printable("The host")])
    port = models.PositiveIntegerField(
        default=3306, validators=[MinValueValidator(1), MaxValueValidator(65535)]
    )
    socket = models.CharField(max_length=255, blank=True, validators=[Printable("The socket")])
    user = models.CharField(max_length=80, validators=[Printable("The user")])
    password_encrypted = models.TextField(blank=True, editable=False)
    tls_mode = models.CharField(
        "TLS mode", max_length=20, default=tls.PREFERRED, choices=[(m, m) for m in tls.MODES],
        help_text="verify-ca / verify-identity check the server's certificate against the CA file",
    )
    tls_ca = models.CharField("TLS CA file", max_length=500, blank=True,
                              help_text="path on this host to the CA certificate (PEM); empty: the system's CAs")
    tls_cert = models.CharField("TLS client certificate", max_length=500, blank=True,
                                help_text="path to a client certificate (PEM), if the server asks for one")
    tls_key = models.CharField("TLS client key", max_length=500, blank=True,
                               help_text="path to the client certificate's key (PEM)")
    tags = ArrayField(models.CharField(max_length=50), default=list, blank=True)
    poll_interval = models.PositiveIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(3600)],
        help_text="seconds between polls of the cheap sources",
    )
    statements_interval = models.PositiveIntegerField(
        "statements interval", default=60, validators=[MinValueValidator(10), MaxValueValidator(3600)],
        help_text="seconds between reads of the statement digest table (10 to 3600)",
    )
    enabled = models.BooleanField(default=True)
    node_exporter_url = models.URLField(
        "node_exporter URL", max_length=500, blank=True, validators=[agent_url_allowed],
        help_text="optional: the host's Prometheus node_exporter, e.g. http://db1:9100/metrics, "
                  "for CPU, load, memory, disk and network beside the database's own figures",
    )
    flavor = models.CharField(max_length=10, choices=FLAVORS, blank=True, editable=False)
    version = models.CharField(max_length=100, blank=True, editable=False)
    # What the server proved when the password was last typed and tested (collectors.pinning), as SSH
    # pins host keys: the stored password is only sent to a server proving the same again.
    PINNED_KINDS = [("", "nothing"), ("tls", "TLS certificate"), ("rsa", "RSA public key")]
    pinned_kind = models.CharField(max_length=3, choices=PINNED_KINDS, blank=True, editable=False)
    pinned_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    pinned_key = models.TextField(blank=True, editable=False, help_text="the pinned RSA public key (PEM)")
    pinned_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(host="") | ~models.Q(socket=""), name="server_host_or_socket"
            )
        ]

    @property
    def version_label(self) -> str:
        """The flavor once, then the version number: "MariaDB 10.11.19" (the full string, which repeats the
        flavor as "10.11.19-MariaDB-0+deb12u1", stays in version)."""
        number = re.match(r"\d+(\.\d+)*", self.version)
        return f"{self.get_flavor_display()} {number.group(0) if number else self.version}".strip()

    def __str__(self) -> str:
        return self.name

    @property
    def password(self) -> str:
        return crypto.decrypt(self.password_encrypted)

    @password.setter
    def password(self, plain: str) -> None:
        self.password_encrypted = crypto.encrypt(plain)

    @property
    def address(self) -> str:
        return self.socket or f"{self.host}:{self.port}"

    # Where the stored password may be sent: changing any of these needs the password again.
    DESTINATION = ("host", "port", "socket", "user", "tls_mode", "tls_ca", "tls_cert", "tls_key")

    def destination(self) -> tuple:
        return tuple(getattr(self, name) for name in self.DESTINATION)


class Run(models.Model):
    """A named test run on one server: the unit the compare view aligns."""

    name = models.CharField(max_length=200, validators=[printable])
    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="runs")
    # mypy takes Django's fields as Any but a subclass of one as itself: these say what reading them gives
    # (ended_at Any, as Django's fields: None only while a run is open, which readers of ended runs never get).
    started_at: datetime = UtcDateTimeField(validators=[within_bounds])
    ended_at: Any = UtcDateTimeField(null=True, blank=True, validators=[within_bounds])
    notes = models.TextField(blank=True, validators=[printable_text])
    created_at = models.DateTimeField(auto_now_add=True)
    warmup_seconds = models.PositiveIntegerField(
        default=0, help_text="seconds at the start left out of the run's statistics (warm-up)")
    # Scalability studies: one run per step of a sweep of concurrency levels.
    concurrency = models.PositiveIntegerField(null=True, blank=True, help_text="client threads the load used")
    sweep = models.CharField(max_length=200, blank=True, validators=[printable],
                             help_text="the sweep this run is a step of")
    label = models.CharField(max_length=200, blank=True, validators=[printable],
                             help_text="what differed in this configuration, e.g. innodb_flush_neighbors=0")
    command = models.TextField(blank=True, help_text="the external benchmark's command line, when one ran")
    tool_summary = models.TextField(blank=True, help_text="the external benchmark's own summary")
    client_figures = models.JSONField(
        default=dict, blank=True,
        help_text="the load's own count and response times after the warm-up (the stress driver's)")

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ended_at__isnull=True) | models.Q(ended_at__gte=models.F("started_at")),
                name="run_ends_after_start",
            ),
            models.CheckConstraint(condition=bounded("started_at"), name="run_started_within_bounds"),
            models.CheckConstraint(condition=bounded("ended_at", nullable=True), name="run_ended_within_bounds"),
        ]

    def __str__(self) -> str:
        return self.name


class Annotation(models.Model):
    """A point in time worth marking on every chart of a server (or all, if none)."""

    server = models.ForeignKey(
        Server, on_delete=models.CASCADE, null=True, blank=True, related_name="annotations"
    )
    run = models.ForeignKey(Run, on_delete=models.CASCADE, null=True, blank=True, related_name="annotations")
    at: datetime = UtcDateTimeField(validators=[within_bounds])
    text = models.CharField(max_length=500, validators=[printable_text])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at"]
        constraints = [models.CheckConstraint(condition=bounded("at"), name="annotation_at_within_bounds")]

    def __str__(self) -> str:
        return self.text
