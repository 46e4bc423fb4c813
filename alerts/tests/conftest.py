"""Named fixtures of the alerts tests: a real SMTP server, servers, rules, samples."""

import email
from datetime import datetime, timedelta
from email import policy

import pytest
from aiosmtpd.controller import Controller

from alerts.models import Rule
from monitor.models import Server
from store.sample import Sample
from testing.mariadb import free_port


class Inbox:
    """aiosmtpd handler keeping what it accepted; refuses the next `refuse` mails with a 4xx."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = 0
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if self.refuse > 0:
            self.refuse -= 1
            self.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"

    def subjects(self) -> list[str]:
        return [m["Subject"] for m in self.messages]

    def text(self, i: int) -> str:
        return self.messages[i].get_body(("plain",)).get_content()

    def html(self, i: int) -> str:
        return self.messages[i].get_body(("html",)).get_content()


@pytest.fixture
def inbox(settings):
    handler = Inbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS, settings.EMAIL_HOST_USER, settings.EMAIL_HOST_PASSWORD = False, "", ""
    settings.ALERT_RECIPIENTS = []  # built-in rules mail nobody in tests
    settings.SITE_URL = "http://steady.example"
    yield handler
    controller.stop()


def make_server(name: str = "db1", port: int = 3306, **fields) -> Server:
    server = Server(name=name, host="127.0.0.1", port=port, user="steady", **fields)
    server.password = "s3cret!"
    server.save()
    return server


def make_rule(**fields) -> Rule:
    defaults = dict(name="History above 100", kind=Rule.THRESHOLD, metric="history_list_length",
                    threshold=100, recipients=["dba@example.com"], cooldown_minutes=0)
    return Rule.objects.create(**{**defaults, **fields})


def history(server: Server, values: list[float], end: datetime, step: float = 10.0) -> None:
    """history_list_length readings, the last one at `end`, one every `step` seconds."""
    from store.ingest import write_samples

    start = end - timedelta(seconds=step * (len(values) - 1))
    write_samples([
        Sample(server.id, "history_length", start + timedelta(seconds=step * i), step if i else None,
               {"history_list_length": v})
        for i, v in enumerate(values)
    ])


@pytest.fixture
def server(db):
    return make_server()
