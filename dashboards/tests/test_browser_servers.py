"""In Chromium: add the sandbox MariaDB through the page and test its connection."""

import pytest

from servers.models import Server
from testing.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_adds_the_sandbox_and_shows_connection_ok(page, live_server, mariadb):
    page.goto(live_server.url + "/servers/")
    page.click("text=Add a server")
    page.fill("input[name=name]", "sandbox")
    page.fill("input[name=host]", "127.0.0.1")
    page.fill("input[name=port]", str(mariadb.port))
    page.fill("input[name=user]", "steady")
    page.fill("input[name=password]", "s3cret!")
    page.fill("input[name=tags]", "test,local")
    page.click("button:has-text('Test connection')")
    result = page.locator("#check-result")
    result.wait_for()
    version = mariadb.execute("SELECT VERSION()")[0][0]
    assert "connection OK" in result.inner_text()
    assert version in result.inner_text()
    assert result.locator("dd").nth(2).inner_text() == "ON"  # performance_schema
    assert page.input_value("input[name=password]") == ""  # never rendered back
    screenshot(page, "servers-test-connection")
    assert not Server.objects.exists()  # testing saves nothing

    page.fill("input[name=password]", "s3cret!")
    page.click("button:has-text('Save')")
    page.wait_for_url(live_server.url + "/servers/")
    assert "Server 'sandbox' saved." in page.inner_text("ul.messages")
    assert version in page.inner_text("table.servers")
    screenshot(page, "servers-list")
    server = Server.objects.get(name="sandbox")
    assert server.version == version and server.password == "s3cret!"
