"""The page an alert's mail and event page link to: where its figure is, at its time."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.models import ServerHealth
from testing.alerts import make_rule
from testing.servers import make_server


def utc(ts) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.django_db
def test_the_unreachable_mail_links_to_the_stability_page_at_the_outage(inbox, admin_client):
    server, now = make_server("db-down"), timezone.now()
    rule = make_rule(name="down", kind=Rule.UNREACHABLE, metric="", threshold=3)
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now - timedelta(seconds=60),
                                consecutive_failures=5, last_error="connection refused", polls=10)
    evaluate_all(now)
    assert sending.send_due(now) == 1  # the built-in rules have no recipients
    event = Event.objects.get(server=server, rule=rule)
    # Half an hour before the outage began to five minutes after the mail's time, as the purge link had.
    path = (f"/servers/{server.id}/stability/?from={utc(event.since - timedelta(minutes=30))}"
            f"&to={utc(now + timedelta(minutes=5))}")
    text, html = inbox.text(0).replace("\r\n", "\n"), inbox.html(0)
    assert f"The server's stability at the outage:\nhttp://steady.example{path}" in text
    link = f'<a href="http://steady.example{path.replace("&", "&amp;")}">'
    assert link + "The server&#x27;s stability at the outage</a>" in html
    assert "/purge/" not in text and "Purge lag" not in text
    page = admin_client.get(f"/alerts/events/{event.id}/").content.decode()
    assert "/stability/?from=" in page and "/purge/" not in page
