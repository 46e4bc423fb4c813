"""The alerts page: rules, firing and past events with their timelines, the test e-mail button."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification, Rule
from testing.alerts import history, make_rule
from testing.browser import screenshot
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def one_past_and_one_firing(server) -> tuple[Event, Event]:
    now = timezone.now()
    past, firing = make_rule(name="Past one", threshold=350), make_rule(name="Firing one", threshold=300)
    history(server, [50, 120, 400], now - timedelta(seconds=20))
    evaluate_all(now - timedelta(seconds=20))
    history(server, [50, 310], now)
    evaluate_all(now)
    return Event.objects.get(rule=past), Event.objects.get(rule=firing)


def test_it_lists_rules_and_firing_and_past_events(admin_client, server, settings):
    settings.ALERT_RECIPIENTS = []
    past, firing = one_past_and_one_firing(server)
    assert (past.firing, firing.firing) == (False, True)
    html = admin_client.get("/alerts/").content.decode()
    firing_section, rest = html.split("<h2>Rules", 1)
    assert "Firing one" in firing_section and "Past one" not in firing_section
    assert "History length above 1,000,000" in rest and "(built in)" in rest
    assert f'href="/alerts/events/{past.id}/"' in rest.split("<h2>Past events", 1)[1]
    assert "nobody: edit the rule, or set ALERT_RECIPIENTS" in rest  # the built-ins, with no ALERT_RECIPIENTS
    for model in ("rule", "event", "notification"):
        assert admin_client.get(f"/admin/alerts/{model}/").status_code == 200


def test_it_shows_an_event_timeline(admin_client, server, inbox):
    past, _ = one_past_and_one_firing(server)
    sending.send_due()
    html = admin_client.get(f"/alerts/events/{past.id}/").content.decode()
    assert "<b class=\"ok\">Resolved</b>" in html
    assert "firing e-mail to dba@example.com, value 400" in html and "resolved e-mail" in html
    assert html.count("sent at") == 2
    assert "<polyline" in html  # the metric around the event, from the store
    assert f"/servers/{server.id}/purge/?from=" in html


def test_it_creates_edits_disables_and_deletes_rules(admin_client, server):
    form = {"name": "Threads", "kind": "threshold", "metric": "Threads_running", "threshold": "50",
            "server": str(server.id), "recipients": "dba@example.com", "cooldown_minutes": "10",
            "renotify_minutes": "60", "enabled": "on"}
    assert admin_client.post("/alerts/rules/new/", form).status_code == 302
    rule = Rule.objects.get(name="Threads")
    assert (rule.threshold, rule.server, rule.renotify_minutes) == (50, server, 60)

    admin_client.post(f"/alerts/rules/{rule.id}/edit/", {**form, "threshold": "80"})
    admin_client.post(f"/alerts/rules/{rule.id}/toggle/")
    rule.refresh_from_db()
    assert (rule.threshold, rule.enabled) == (80, False)

    admin_client.post(f"/alerts/rules/{rule.id}/delete/")
    assert not Rule.objects.filter(id=rule.id).exists()
    admin_client.get("/alerts/")  # the page creates the built-in rules
    builtin = Rule.objects.exclude(builtin="").first()
    response = admin_client.post(f"/alerts/rules/{builtin.id}/delete/", follow=True)
    assert "is built in: disable it instead" in response.content.decode()
    assert Rule.objects.filter(id=builtin.id).exists()


def test_it_sends_a_test_email_from_the_button(admin_client, inbox):
    admin_client.get("/alerts/")
    response = admin_client.post("/alerts/test-email/", {"address": "me@example.com"}, follow=True)
    assert "Test e-mail to me@example.com queued" in response.content.decode()
    assert sending.send_due() == 1
    assert inbox.subjects() == ["[SteadyState] Test e-mail"] and inbox.messages[0]["To"] == "me@example.com"
    assert Notification.objects.get(kind="test").status == "sent"

    response = admin_client.post("/alerts/test-email/", {"address": "me@"}, follow=True)
    assert "Not a valid e-mail address: &#x27;me@&#x27;. Write it like dba@example.com." in response.content.decode()


def test_a_bad_test_email_address_is_named_escaped(admin_client):
    response = admin_client.post("/alerts/test-email/", {"address": "<b>me@"}, follow=True)
    assert "Not a valid e-mail address: &#x27;&lt;b&gt;me@&#x27;. Write it like" in response.content.decode()
    assert "<b>me@" not in response.content.decode()


@pytest.mark.browser
def test_it_works_in_a_browser(page, live_server, inbox):
    server = make_server("browser-db")
    one_past_and_one_firing(server)
    page.goto(live_server.url + "/alerts/")
    page.click("text=New rule")
    page.fill("#id_name", "History grows fast")
    page.select_option("#id_kind", "growth")
    page.fill("#id_metric", "history_list_length")
    page.fill("#id_threshold", "5000")
    page.fill("#id_window_minutes", "-3")
    page.fill("#id_recipients", "dba@example.com")
    page.click("button:text('Save')")
    assert page.locator(".error", has_text="positive number of minutes").is_visible()
    screenshot(page, "alerts-rule-form")
    page.fill("#id_window_minutes", "5")
    page.click("button:text('Save')")
    page.wait_for_url(live_server.url + "/alerts/")
    assert page.locator("table.alerts-rules", has_text="History grows fast").is_visible()
    page.fill("input[name=address]", "me@example.com")
    page.click("button:text('Send test e-mail')")
    page.wait_for_load_state()
    sending.send_due()
    assert inbox.subjects() == ["[SteadyState] Test e-mail"] or "[SteadyState] Test e-mail" in inbox.subjects()
    page.reload()
    screenshot(page, "alerts-page")
    page.click("table.alerts-firing a:text('Firing one')")
    screenshot(page, "alerts-event")
    assert page.locator("table.event-timeline").is_visible()


def test_a_rule_that_fails_to_evaluate_says_so_on_the_page_until_it_is_fixed(admin_client, server):
    now = timezone.now()
    broken = make_rule(name="Saved before spans were checked", kind=Rule.GROWTH, threshold=10, window_minutes=1e300)
    history(server, [50, 120, 400], now)
    evaluate_all(now)
    broken.refresh_from_db()
    assert broken.failing.startswith("OverflowError") and broken.failing_since == now
    body = admin_client.get("/alerts/").content.decode()
    assert "fails to evaluate since" in body and "OverflowError" in body
    evaluate_all(now + timedelta(seconds=15))  # still failing: the first failure's time is kept
    broken.refresh_from_db()
    assert broken.failing_since == now

    Rule.objects.filter(id=broken.id).update(window_minutes=5)  # fixed
    evaluate_all(now + timedelta(seconds=30))
    broken.refresh_from_db()
    assert (broken.failing, broken.failing_since) == ("", None)
    assert "fails to evaluate" not in admin_client.get("/alerts/").content.decode()


def test_past_events_say_what_became_of_their_e_mails(admin_client, server, settings):
    settings.ALERT_RECIPIENTS = []
    past, _firing = one_past_and_one_firing(server)  # queued, never sent: no SMTP call was made
    body = admin_client.get("/alerts/").content.decode()
    row = body.split("Past events")[1]
    assert "firing: queued" in row and "resolved: queued" in row and ">sent<" not in row
    Notification.objects.filter(event=past, kind=Notification.FIRING).update(sent_at=timezone.now())
    assert "firing: sent" in admin_client.get("/alerts/").content.decode().split("Past events")[1]
