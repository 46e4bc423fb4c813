"""The Servers list in pages of 100: a fleet of 1,000 lists as fast as a small one, and every server is on a page."""

import re

import pytest

from servers.models import Server

pytestmark = pytest.mark.django_db


def names(html: str) -> list[str]:
    return re.findall(r'title="its stability, purge lag and waits pages">([^<]+)</a>', html)


def test_it_lists_250_servers_on_three_pages_in_name_order(admin_client):
    Server.objects.bulk_create([Server(name=f"db{k:03d}", host="h", user="u") for k in range(250)])
    pages = [admin_client.get("/servers/", {"page": n}).content.decode() for n in (1, 2, 3)]
    assert [len(names(p)) for p in pages] == [100, 100, 50]
    assert sum((names(p) for p in pages), []) == [f"db{k:03d}" for k in range(250)]
    assert "servers 101–200 of 250" in pages[1]
    assert 'href="?page=3"' in pages[1] and 'href="?page=1"' in pages[1]
    assert names(admin_client.get("/servers/").content.decode()) == names(pages[0])


def test_a_small_fleet_is_one_page_without_a_pager(admin_client):
    Server.objects.create(name="only", host="h", user="u")
    html = admin_client.get("/servers/").content.decode()
    assert names(html) == ["only"] and "?page=" not in html


@pytest.mark.parametrize("page", ["0", "4", "two", "-1", "1.5", "²", "1" * 5000])
def test_a_page_that_is_not_there_is_a_400_saying_which_exist(admin_client, page):
    Server.objects.bulk_create([Server(name=f"db{k:03d}", host="h", user="u") for k in range(250)])
    response = admin_client.get("/servers/", {"page": page})
    assert response.status_code == 400
    assert "page: a whole number from 1 to 3" in response.content.decode()
