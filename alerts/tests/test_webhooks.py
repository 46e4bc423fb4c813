"""Alert webhooks against a real local HTTP receiver: signed firing and resolved calls, retries, the page."""

import hashlib
import hmac
import json
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Notification, Rule
from alerts.webhook_targets import RefusedTarget, opener
from testing.alerts import history, make_rule
from testing.mariadb import free_port
from testing.servers import make_server
from testing.webhook_sink import running_sink

SECRET = "s3cret-for-hooks"


@pytest.fixture
def sink(settings):
    settings.SITE_URL = "http://steady.example"
    settings.ALERT_RECIPIENTS = []
    with running_sink() as sink:
        yield sink


def expected_signature(headers, body: bytes) -> str:
    """The signature as a receiver computes it, from the documented recipe."""
    timestamp = headers["X-SteadyState-Timestamp"].encode()
    return "sha256=" + hmac.new(SECRET.encode(), timestamp + b"." + body, hashlib.sha256).hexdigest()


def hooked_rule(url: str) -> Rule:
    rule = make_rule(threshold=1000, recipients=[], webhook_url=url)
    rule.webhook_secret = SECRET
    rule.save()
    return rule


@pytest.mark.django_db
def test_it_posts_firing_then_resolved_signed_with_the_rules_secret(sink):
    server, now = make_server("db-hooked"), timezone.now()
    rule = hooked_rule(sink.url)
    history(server, [900, 1500, 2345], now)
    evaluate_all(now)
    sending.send_due(now)
    history(server, [40], now + timedelta(seconds=10))
    evaluate_all(now + timedelta(seconds=10))
    sending.send_due(now + timedelta(seconds=10))

    assert [c.json["event"] for c in sink.calls] == ["firing", "resolved"]
    for call in sink.calls:
        assert call.headers["X-SteadyState-Signature"] == expected_signature(call.headers, call.body)
    firing = sink.calls[0].json
    assert (firing["server"], firing["rule"], firing["value"]) == ("db-hooked", rule.name, 2345)
    assert firing["text"].startswith(f"[FIRING] {rule.name} on db-hooked") and "2,345" in firing["text"]
    assert firing["url"].startswith("http://steady.example/alerts/events/")
    hooks = Notification.objects.filter(channel=Notification.WEBHOOK)
    assert [n.status for n in hooks.order_by("id")] == ["sent", "sent"]


@pytest.mark.django_db
def test_the_resolved_call_names_the_condition_it_fired_under_after_an_edit(sink):
    server, now = make_server("db-edited"), timezone.now()
    rule = hooked_rule(sink.url)
    rule.threshold = 1
    rule.save()
    history(server, [900, 1500, 2345], now)
    evaluate_all(now)
    sending.send_due(now)
    rule.threshold = 1_000_000_000  # the edit that clears it: the history is still 2,400
    rule.save()
    history(server, [2400], now + timedelta(seconds=10))
    evaluate_all(now + timedelta(seconds=10))
    sending.send_due(now + timedelta(seconds=10))

    firing, resolved = (c.json for c in sink.calls)
    assert (firing["event"], resolved["event"]) == ("firing", "resolved")
    assert firing["condition"] == resolved["condition"] == "history_list_length above 1"
    assert resolved["rule_edited"] is True and resolved["condition_now"] == "history_list_length above 1,000,000,000"
    assert "history_list_length above 1; resolved: the rule was edited;" in resolved["text"]
    assert firing["rule_edited"] is False and "the rule was edited" not in firing["text"]


@pytest.mark.django_db
def test_a_tampered_body_does_not_match_its_signature(sink):
    server, now = make_server(), timezone.now()
    hooked_rule(sink.url)
    history(server, [2000], now)
    evaluate_all(now)
    sending.send_due(now)
    call = sink.calls[0]
    tampered = json.dumps({**call.json, "value": 1}).encode()
    assert call.headers["X-SteadyState-Signature"] != expected_signature(call.headers, tampered)


@pytest.mark.django_db
def test_a_receiver_answering_500_is_retried_and_the_page_says_so(sink, admin_client):
    sink.status = 500
    server, now = make_server("db-sink-down"), timezone.now()
    hooked_rule(sink.url)
    history(server, [2000], now)
    evaluate_all(now)
    assert sending.send_due(now) == 0
    n = Notification.objects.get(channel=Notification.WEBHOOK)
    assert (n.status, n.attempts, n.last_error) == ("retrying", 1, "HTTP 500")
    assert n.next_attempt_at == now + sending.BACKOFF
    page = admin_client.get("/alerts/").content.decode()
    assert "webhook firing: retrying (HTTP 500)" in page
    assert "banner" not in page  # the receiver's body is never shown

    sink.status = 200
    assert sending.send_due(now + sending.BACKOFF) == 1
    assert len(sink.calls) == 2
    n.refresh_from_db()
    assert (n.status, n.attempts) == ("sent", 2)
    assert "webhook firing: sent" in admin_client.get("/alerts/").content.decode()


@pytest.mark.django_db
def test_a_receiver_refusing_with_404_is_not_retried(sink):
    sink.status = 404
    server, now = make_server(), timezone.now()
    hooked_rule(sink.url)
    history(server, [2000], now)
    evaluate_all(now)
    sending.send_due(now)
    n = Notification.objects.get(channel=Notification.WEBHOOK)
    assert (n.status, n.last_error) == ("failed", "HTTP 404")
    assert sending.send_due(now + timedelta(hours=2)) == 0 and len(sink.calls) == 1


@pytest.mark.django_db
def test_an_unreachable_receiver_is_retried_without_a_traceback(settings):
    settings.ALERT_RECIPIENTS = []
    server, now = make_server(), timezone.now()
    hooked_rule(f"http://127.0.0.1:{free_port()}/hook")
    history(server, [2000], now)
    evaluate_all(now)
    assert sending.send_due(now) == 0
    n = Notification.objects.get(channel=Notification.WEBHOOK)
    assert n.status == "retrying" and n.last_error == "not reached: ConnectionRefusedError"


@pytest.mark.django_db
def test_the_form_keeps_the_secret_write_only(admin_client, sink):
    data = {"name": "hooked", "kind": Rule.THRESHOLD, "metric": "history_list_length", "threshold": 10,
            "cooldown_minutes": 0, "renotify_minutes": 0, "enabled": "on", "webhook_url": sink.url,
            "webhook_secret": SECRET}
    assert admin_client.post("/alerts/rules/new/", data).status_code == 302
    rule = Rule.objects.get(name="hooked")
    assert rule.webhook_secret == SECRET and SECRET not in rule.webhook_secret_encrypted
    page = admin_client.get(f"/alerts/rules/{rule.id}/edit/").content.decode()
    assert SECRET not in page
    admin_client.post(f"/alerts/rules/{rule.id}/edit/", {**data, "webhook_secret": ""})
    rule.refresh_from_db()
    assert rule.webhook_secret == SECRET  # empty keeps it
    response = admin_client.post(f"/alerts/rules/{rule.id}/edit/", {**data, "webhook_url": "file:///etc/passwd"})
    assert response.status_code == 200 and "Enter a valid URL" in response.content.decode()


def refused_call(url: str) -> Notification:
    server, now = make_server(), timezone.now()
    hooked_rule(url)  # saved as before the form checked it, or resolving elsewhere since
    history(server, [2000], now)
    evaluate_all(now)
    sending.send_due(now)
    n = Notification.objects.get(channel=Notification.WEBHOOK)
    assert sending.send_due(now + timedelta(hours=2)) == 0  # not retried
    n.refresh_from_db()
    return n


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["http://169.254.169.254/latest", "http://2852039166/latest"])  # the same as a number
def test_a_rule_pointing_at_the_metadata_service_is_refused_at_send_time(sink, url):
    n = refused_call(url)
    assert (n.status, n.last_error) == (
        "failed", "webhook refused: 169.254.169.254 is link-local (where cloud metadata services answer)")


@pytest.mark.django_db
def test_a_name_is_checked_on_the_address_it_resolves_to_at_send_time(sink, settings):
    """localhost is a name the form let through; at the call it resolves to 127.0.0.1, which the setting
    refuses: the local receiver gets no call."""
    settings.WEBHOOK_PRIVATE_NETWORKS = False
    n = refused_call(sink.url.replace("127.0.0.1", "localhost"))
    assert n.status == "failed" and n.last_error.startswith(
        "webhook refused: 127.0.0.1 is a private or loopback address")
    assert sink.calls == []


@pytest.mark.django_db
def test_a_relay_on_a_loopback_name_is_called(sink):
    server, now = make_server(), timezone.now()
    hooked_rule(sink.url.replace("127.0.0.1", "localhost"))
    history(server, [2000], now)
    evaluate_all(now)
    sending.send_due(now)
    assert [c.json["event"] for c in sink.calls] == ["firing"]
    assert Notification.objects.get(channel=Notification.WEBHOOK).status == "sent"


@pytest.mark.django_db
def test_a_redirect_to_the_metadata_service_is_not_followed(sink):
    sink.status, sink.location = 302, "http://169.254.169.254/latest/meta-data/"
    n = refused_call(sink.url)
    assert len(sink.calls) == 1  # the receiver was called; where it sent us (urllib follows a 302) was not
    assert (n.status, n.last_error) == (
        "failed", "webhook refused: 169.254.169.254 is link-local (where cloud metadata services answer)")


def test_a_redirect_through_a_proxy_is_checked_before_the_proxy_fetches_it():
    """Through a proxy the connection goes to the proxy, whose address passes; the receiver's 302 to the
    metadata service would be fetched by the proxy. Here the 'proxy' answers the POST itself with that 302."""
    with running_sink() as proxy:
        proxy.status, proxy.location = 302, "http://169.254.169.254/latest/meta-data/"
        call = urllib.request.Request("http://hooks.example.test/hook", data=b"{}", method="POST")
        with pytest.raises(RefusedTarget, match="169.254.169.254 is link-local"):
            opener({"http": proxy.url.removesuffix("/hook")}).open(call, timeout=10)
    assert len(proxy.calls) == 1  # the POST, through the proxy; no second request for the redirect
