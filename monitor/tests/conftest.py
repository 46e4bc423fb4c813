"""Named fixtures of the monitor tests: a real SMTP server receiving what `up` and its watchdog mail."""

import pytest
from aiosmtpd.controller import Controller

from testing.alerts import Inbox
from testing.mariadb import free_port


@pytest.fixture
def inbox(settings):
    """An aiosmtpd inbox; this process's settings mail it, as do children given its EMAIL_PORT."""
    handler = Inbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS, settings.EMAIL_HOST_USER, settings.EMAIL_HOST_PASSWORD = False, "", ""
    settings.ALERT_RECIPIENTS = ["oncall@example.com"]
    yield handler
    controller.stop()
