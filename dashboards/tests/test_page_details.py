"""Details a new user meets on the pages: each says what is true, errors are styled, forms point at the field."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from dashboards.templatetags.dash_fmt import duration
from servers.models import Annotation, Run, Server
from testing.dashboards import make_server, write_polls

pytestmark = pytest.mark.django_db


def test_a_down_server_says_unreachable_since_its_last_poll(admin_client):
    from collectors.models import ServerHealth

    server = make_server()
    write_polls(server, 30, end=timezone.now() - timedelta(minutes=10))
    last_ok = timezone.now() - timedelta(minutes=10)
    ServerHealth.objects.create(server=server, last_poll_at=timezone.now(), last_success_at=last_ok,
                                consecutive_failures=60, last_error="Can't connect to MySQL server on '10.0.0.5'")
    body = admin_client.get(f"/servers/{server.pk}/stability/?range=1h").content.decode()
    assert f"unreachable since {last_ok:%Y-%m-%d %H:%M:%S} UTC" in body and "10.0.0.5" in body
    assert "performance_schema off or no data" not in body and "No dips" not in body
    assert "no polls: outage or restart" in body  # the outage still going on is a stall


def test_an_outage_going_on_lasts_until_now_on_a_range_ending_ahead(admin_client):
    """Audit 4: with to= an hour ahead, the outage still going on was listed to that hour, 70 minutes long, where
    the polls stopped 10 minutes ago: it has lasted 10 minutes (600 s, and the seconds this test takes)."""
    from collectors.models import ServerHealth

    server = make_server()
    last_ok = timezone.now() - timedelta(minutes=10)
    write_polls(server, 30, end=last_ok)
    ServerHealth.objects.create(server=server, last_poll_at=timezone.now(), last_success_at=last_ok,
                                consecutive_failures=60, last_error="Can't connect to MySQL server on '10.0.0.5'")
    now = timezone.now()
    ahead = {"from": f"{now - timedelta(minutes=30):%Y-%m-%dT%H:%M:%S}",
             "to": f"{now + timedelta(hours=1):%Y-%m-%dT%H:%M:%S}"}
    body = admin_client.get(f"/servers/{server.pk}/stability/", ahead).content.decode()
    row = body.split('<table class="dips">')[1].split("no polls: outage or restart")[0].split("<tr>")[-1]
    seconds = int(row.split('<td class="num">')[1].split(" s</td>")[0])
    assert 600 - 10 <= seconds <= 600 + 60  # from the newest poll (at most one 10 s interval before last_ok)
    assert f"{now + timedelta(hours=1):%H:%M:%S}" not in row


@pytest.mark.parametrize("page", ["purge", "pressure"])
def test_the_purge_and_pressure_pages_of_a_down_server_say_unreachable_too(admin_client, page):
    """Seen: a server killed mid-run read "unreachable since ..." on its stability page, while its purge page read
    "No verdict: no trend now" and its pressure page "not known for this range", nothing of why."""
    from collectors.models import ServerHealth

    server = make_server()
    write_polls(server, 30, end=timezone.now() - timedelta(minutes=10))
    last_ok = timezone.now() - timedelta(minutes=10)
    ServerHealth.objects.create(server=server, last_poll_at=timezone.now(), last_success_at=last_ok,
                                consecutive_failures=60, last_error="Can't connect to MySQL server on '10.0.0.5'")
    body = admin_client.get(f"/servers/{server.pk}/{page}/?range=1h").content.decode()
    assert f"unreachable since {last_ok:%Y-%m-%d %H:%M:%S} UTC" in body and "10.0.0.5" in body


@pytest.mark.parametrize("page", ["stability", "purge", "pressure"])
def test_a_server_never_polled_says_so_not_that_it_is_unreachable(admin_client, page):
    """Seen: a server just added read "is unreachable never polled successfully: not polled yet", though nothing
    had tried to reach it; one whose first poll failed read the same words without a break."""
    from collectors.models import ServerHealth

    new = make_server("new")
    body = admin_client.get(f"/servers/{new.pk}/{page}/?range=1h").content.decode()
    assert "<strong>new is not polled yet: added at " in body and "first poll due by " in body
    assert "is unreachable" not in body
    refused = make_server("refused")
    ServerHealth.objects.create(server=refused, last_poll_at=timezone.now(), consecutive_failures=1,
                                last_error="access denied for user 'steady'")
    body = admin_client.get(f"/servers/{refused.pk}/{page}/?range=1h").content.decode()
    assert "refused is unreachable and never polled successfully: 1 failed poll in a row: access denied" in body


def test_firing_alerts_link_to_a_page_that_exists(admin_client):
    from alerts.models import Event, Rule

    server = make_server()
    rule = Rule.objects.create(name="hll", kind=Rule.THRESHOLD, metric="history_list_length", threshold=1e6)
    Event.objects.create(rule=rule, server=server, since=timezone.now(), opened_at=timezone.now(), value=2e6)
    body = admin_client.get("/alerts/").content.decode()
    link = f'href="/servers/{server.pk}/stability/"'
    assert link in body and admin_client.get(f"/servers/{server.pk}/stability/").status_code == 200


@override_settings(DEBUG=False)
def test_not_found_is_a_styled_page(admin_client):
    response = admin_client.get("/servers/999999/stability/")
    body = response.content.decode()
    assert response.status_code == 404 and "app.css" in body and "Back to the fleet" in body


def test_the_server_error_page_is_styled():
    from django.template.loader import render_to_string

    assert "app.css" in render_to_string("500.html") and "Something went wrong" in render_to_string("500.html")


def test_forms_put_errors_under_their_field_and_refuse_port_0(admin_client):
    body = admin_client.get("/servers/add/").content.decode()
    port_input = next(tag for tag in body.split("<input")[1:] if 'name="port"' in tag.split(">")[0])
    assert 'min="1"' in port_input.split(">")[0]
    body = admin_client.post("/servers/add/", {"name": "x", "host": "127.0.0.1", "port": "0", "user": "u",
                                         "password": "p", "poll_interval": "10", "action": "save"}).content.decode()
    port = body.split('name="port"')[1].split("</p>")[0]
    assert "65535" in port  # the error is in the port's own paragraph, after its input


def test_a_run_ending_before_its_start_is_said_plainly(admin_client):
    server = make_server()
    now = timezone.now()
    body = admin_client.post("/runs/", {"run-name": "r", "run-server": server.pk,
                                  "run-started_at": f"{now:%Y-%m-%dT%H:%M:%S}",
                                  "run-ended_at": f"{now - timedelta(hours=1):%Y-%m-%dT%H:%M:%S}"}).content.decode()
    assert "cannot end before it starts" in body and "constraint" not in body.lower()
    assert not Run.objects.exists()


def test_the_same_address_twice_is_saved_with_a_warning(admin_client):
    Server.objects.create(name="first", host="127.0.0.1", port=1, user="steady", poll_interval=10)
    # Port 1 refuses at once: saved anyway, as a user may do while the server is down.
    form = {"name": "second", "host": "127.0.0.1", "port": "1", "user": "steady",
            "password": "pw", "poll_interval": "10", "action": "save", "save_anyway": "1"}
    response = admin_client.post("/servers/add/", form, follow=True)
    assert Server.objects.filter(name="second").exists()
    assert "same MySQL server as &#x27;first&#x27;" in response.content.decode()


def test_an_address_registered_three_times_is_said_to_be_polled_three_times(admin_client):
    for name in ("first", "second"):
        Server.objects.create(name=name, host="127.0.0.1", port=1, user="steady", poll_interval=10)
    form = {"name": "third", "host": "127.0.0.1", "port": "1", "user": "steady", "enabled": "on",
            "password": "pw", "poll_interval": "10", "action": "save", "save_anyway": "1"}
    body = admin_client.post("/servers/add/", form, follow=True).content.decode()
    assert "same MySQL server as &#x27;first&#x27;, &#x27;second&#x27; (same address): it is polled 3 times." in body
    Server.objects.filter(name="first").update(enabled=False)
    body = admin_client.post("/servers/add/", {**form, "name": "fourth"}, follow=True).content.decode()
    assert "(same address): it is polled 3 times." in body  # second, third and fourth: first is disabled
    body = admin_client.post("/servers/add/", {**form, "name": "fifth", "enabled": ""}, follow=True).content.decode()
    assert "&#x27;third&#x27; (same address): it is polled 3 times." in body  # fifth is disabled: still 3


def test_a_disabled_twin_is_named_apart_with_where_to_resume_it(admin_client):
    first = Server.objects.create(name="first", host="127.0.0.1", port=1, user="steady", poll_interval=10,
                                  enabled=False)
    form = {"name": "second", "host": "127.0.0.1", "port": "1", "user": "steady", "enabled": "on",
            "password": "pw", "poll_interval": "10", "action": "save", "save_anyway": "1"}
    body = admin_client.post("/servers/add/", form, follow=True).content.decode()
    assert "same MySQL server as" not in body  # the only twin is not polled: second is the only entry polled
    assert (f"&#x27;first&#x27; (disabled: /servers/{first.pk}/edit/) is this address too: to keep one history "
            "of the server, resume it there (tick Enabled) rather than keep two entries of it.") in body


def test_the_favicon_is_served(admin_client):
    body = admin_client.get("/").content.decode()
    assert 'rel="icon"' in body and "favicon.svg" in body


@pytest.mark.parametrize(("seconds", "shown"), [(5, "5 s"), (94, "1 min 34 s"), (531.7, "8 min 52 s"),
                                                (3600, "1 h"), (7140, "1 h 59 min"), (97205, "1 d 3 h")])
def test_a_span_is_shown_in_its_two_largest_units(seconds, shown):
    """A holder that held purge 8 min 52 s read "8 min", 1 h 59 min read "1 h"."""
    assert duration(timedelta(seconds=seconds)) == shown


def test_the_forms_refuse_control_characters_in_names_and_texts_but_tabs_in_notes(admin_client):
    """Audit 4: a run named "r\\x01" or an annotation "\\x1b[2J" was saved by the runs page's forms."""
    server = make_server()
    now = f"{timezone.now():%Y-%m-%dT%H:%M:%S}"
    run = {"run-name": "r\x01", "run-server": server.pk, "run-started_at": now, "run-notes": "a\tb\nc"}
    body = admin_client.post("/runs/", run).content.decode()
    assert "A name cannot hold control characters (U+0001): use letters, digits, spaces and punctuation." in body
    assert not Run.objects.exists()
    body = admin_client.post("/runs/", {"note-server": server.pk, "note-at": now, "note-text": "\x1b[2J"}).content
    assert "A text cannot hold control characters (U+001B)" in body.decode()
    assert not Annotation.objects.exists()
    admin_client.post("/runs/", {**run, "run-name": "r"})
    assert Run.objects.get().notes == "a\tb\nc"


def test_the_verdict_of_a_down_server_judges_the_outage_going_on_that_the_dips_list_shows(admin_client):
    """A wobbly line (5,000 to 5,899 a poll, no dip in its 30 polls) whose polls stopped 10 minutes ago: the list
    shows the outage going on, from the newest poll to now; the verdict called the range steady."""
    from collectors.models import ServerHealth

    server = make_server()
    last_ok = timezone.now() - timedelta(minutes=10)
    write_polls(server, 30, end=last_ok)
    ServerHealth.objects.create(server=server, last_poll_at=timezone.now(), last_success_at=last_ok,
                                consecutive_failures=60, last_error="Can't connect to MySQL server on '10.0.0.5'")
    context = admin_client.get(f"/servers/{server.pk}/stability/?range=1h").context
    listed = [(d.start, d.end) for d, _ in context["dips"] if d.stalled]
    assert len(listed) == 1 and 600 <= (listed[0][1] - listed[0][0]).total_seconds() <= 600 + 60
    verdict = context["verdict"]
    assert verdict.kind == "dips" and [(d.start, d.end) for d in verdict.dips] == listed  # before: "steady"
