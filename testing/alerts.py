"""Alerts test support: an SMTP inbox (aiosmtpd handler), rules and history-length samples."""

import email
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import policy

from aiosmtpd.controller import Controller

from alerts.builtin import ensure_builtin_rules
from alerts.models import Rule
from collectors.record import record
from collectors.results import PollResult, SourceResult
from servers.models import Server
from store import query
from store.ingest import write_samples
from store.sample import Sample
from testing.mariadb import free_port


class Inbox:
    """aiosmtpd handler keeping what it accepted; refuses the next `refuse` mails with a 4xx."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.arrived: list[datetime] = []  # when each message was accepted
        self.refuse = 0
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if self.refuse > 0:
            self.refuse -= 1
            self.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        self.arrived.append(datetime.now(UTC))
        return "250 OK"

    def subjects(self) -> list[str]:
        return [m["Subject"] for m in self.messages]

    def text(self, i: int) -> str:
        return self.part(i, "plain")

    def html(self, i: int) -> str:
        return self.part(i, "html")

    def part(self, i: int, kind: str) -> str:
        body = self.messages[i].get_body((kind,))
        assert body is not None, f"message {i} has no {kind} part"
        return body.get_content()


def make_rule(**fields) -> Rule:
    defaults = dict(name="History above 100", kind=Rule.THRESHOLD, metric="history_list_length",
                    threshold=100, recipients=["dba@example.com"], cooldown_minutes=0)
    return Rule.objects.create(**{**defaults, **fields})


def source_rule() -> Rule:
    """The built-in source-failing rule, mailing dba@example.com with no cooldown."""
    ensure_builtin_rules()
    Rule.objects.filter(builtin="source-failing").update(recipients=["dba@example.com"], cooldown_minutes=0)
    return Rule.objects.get(builtin="source-failing")


def record_poll(server: Server, at: datetime, error_of: Callable[[str], str], **statuses: str) -> None:
    """One poll that connected, as the collectors record it (collectors.record, which keeps whether a source ever
    ran): global_status ok, each source named with its status and, unless ok, its error (error_of(name))."""
    sources = [SourceResult(name, status, error="" if status == "ok" else error_of(name))
               for name, status in statuses.items()]
    record([server], [PollResult(server.id, server.name, at, sources=[SourceResult("global_status", "ok"), *sources])])


def history(server: Server, values: list[float], end: datetime, step: float = 10.0) -> None:
    """history_list_length readings, the last one at `end`, one every `step` seconds."""
    start = end - timedelta(seconds=step * (len(values) - 1))
    write_samples([
        Sample(server.id, "history_length", start + timedelta(seconds=step * i), step if i else None,
               {"history_list_length": v})
        for i, v in enumerate(values)
    ])


WRITES = 300  # committed updates while the read view is held: each leaves undo that purge must keep


def history_now(server_id: int) -> float:
    return query.latest([server_id], ["history_list_length"])[(server_id, "history_list_length")][1]


def until(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.3)


@contextmanager
def smtp_inbox(settings, recipients: list[str]) -> Iterator["Inbox"]:
    """A real SMTP server (aiosmtpd) on a free port, which this process's settings mail."""
    handler = Inbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS, settings.EMAIL_HOST_USER, settings.EMAIL_HOST_PASSWORD = False, "", ""
    settings.ALERT_RECIPIENTS = recipients
    try:
        yield handler
    finally:
        controller.stop()
