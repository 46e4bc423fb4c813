"""ALERT_RECIPIENTS is checked at start and shown on the Alerts page when wrong."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

BAD = ["a@x.com;b@y.com"]


@pytest.mark.django_db
def test_a_bad_setting_stops_up_with_a_clear_error(settings):
    settings.ALERT_RECIPIENTS = BAD
    with pytest.raises(SystemCheckError, match=r"alerts.E001.*'a@x.com;b@y.com'.*Separate addresses with commas"):
        call_command("up", "--port", "1", skip_checks=False)  # the checks run before anything starts


def test_good_addresses_pass_the_check(settings):
    settings.ALERT_RECIPIENTS = ["a@x.com", "b@y.com"]
    call_command("check", "--tag", "compatibility")


@pytest.mark.django_db
def test_the_alerts_page_says_what_is_wrong(admin_client, settings):
    settings.ALERT_RECIPIENTS = BAD
    html = admin_client.get("/alerts/").content.decode()
    assert "Alert e-mails cannot be sent" in html and "a@x.com;b@y.com" in html
