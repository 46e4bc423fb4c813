"""Named fixtures of the alerts tests: a real SMTP server and a server (helpers in testing.alerts)."""

import pytest
from aiosmtpd.controller import Controller

from testing.alerts import Inbox
from testing.mariadb import free_port
from testing.servers import make_server


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


@pytest.fixture
def server(db):
    return make_server()
