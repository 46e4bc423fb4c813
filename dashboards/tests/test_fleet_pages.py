"""The fleet page in pages of 100, worst first: the problems are on page 1, the counts are the whole fleet's,
and the CSV keeps every server."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.models import Event
from collectors.models import ServerHealth
from servers.models import Server
from testing.alerts import make_rule
from testing.dashboards import get_csv

pytestmark = pytest.mark.django_db


def names(html: str) -> list[str]:
    return re.findall(r"<strong>([^<]+)</strong></a><br>", html)


@pytest.fixture
def fleet_of_230():
    """230 servers polled now; db007 down, db150 stale, db200 with an alert firing, db229 never polled,
    db010 disabled, db030 tagged "rack"."""
    now = timezone.now()
    servers = Server.objects.bulk_create([
        Server(name=f"db{k:03d}", host="h", user="u", enabled=k != 10, tags=["rack"] if k == 30 else [])
        for k in range(230)])
    ServerHealth.objects.bulk_create([
        ServerHealth(server=s, last_poll_at=now, consecutive_failures=4 if k == 7 else 0,
                     last_success_at=now - timedelta(minutes=10) if k in (7, 150) else now)
        for k, s in enumerate(servers) if k != 229])
    Event.objects.create(rule=make_rule(name="history high"), server=servers[200], since=now, opened_at=now,
                         value=3000)
    return servers


def test_it_shows_100_servers_a_page_worst_first_and_counts_the_whole_fleet(admin_client, fleet_of_230):
    pages = [admin_client.get("/", {"page": n}).content.decode() for n in (1, 2, 3)]
    # down, stale, never polled, then up with an alert firing first, then up by name, disabled last.
    up = [f"db{k:03d}" for k in range(230) if k not in (7, 10, 150, 200, 229)]
    expected = ["db007", "db150", "db229", "db200", *up, "db010"]
    assert [len(names(p)) for p in pages] == [100, 100, 30]
    assert sum((names(p) for p in pages), []) == expected
    for page in pages:  # 230 servers: 1 down, 1 stale, 1 never polled, 226 up, 1 disabled
        assert "1 down · 1 stale · 1 never polled · 226 up · 1 disabled" in page
    assert "servers 101–200 of 230" in pages[1]
    assert 'href="?page=3"' in pages[1] and 'href="?page=1"' in pages[1]
    assert names(admin_client.get("/").content.decode()) == names(pages[0])


def test_the_pages_keep_the_tag_and_the_condition_waits(admin_client, fleet_of_230):
    html = admin_client.get("/", {"cond": "1"}).content.decode()
    assert 'href="?cond=1&amp;page=2"' in html
    tagged = admin_client.get("/", {"tag": "rack"}).content.decode()
    assert names(tagged) == ["db030"] and "?page=" not in tagged and "1 up" in tagged


def test_the_csv_has_every_server_in_the_pages_order(admin_client, fleet_of_230):
    rows = get_csv(admin_client, "/export/fleet.csv")[1:]
    pages = sum((names(admin_client.get("/", {"page": n}).content.decode()) for n in (1, 2, 3)), [])
    assert [r[0] for r in rows] == pages and len(rows) == 230


@pytest.mark.parametrize("page", ["0", "4", "two", "-1", "1.5", "²", "", "1" * 5000])
def test_a_page_that_is_not_there_is_a_400_saying_which_exist(admin_client, fleet_of_230, page):
    response = admin_client.get("/", {"page": page})
    assert response.status_code == 400
    assert "page: a whole number from 1 to 3" in response.content.decode()
