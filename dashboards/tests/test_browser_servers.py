"""In Chromium: add the sandbox MariaDB through the page and test its connection."""

import re

import pytest

from collectors import pool
from collectors.batch import poll_server
from servers.models import Server
from testing.browser import screenshot
from testing.collectors import DISABLE_SUMMARY, LOAD_DB, Load

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
    assert page.input_value("input[name=password]") == "s3cret!"  # kept for the Save that follows
    screenshot(page, "servers-test-connection")
    assert not Server.objects.exists()  # testing saves nothing

    page.click("button:has-text('Save')")  # without typing the password again
    page.wait_for_url(live_server.url + "/servers/")
    assert "Server 'sandbox' saved." in page.inner_text("ul.messages")
    # The flavor once and the number ("MariaDB 10.11.19"); the server's own string in the tooltip.
    assert f"MariaDB {version.split('-')[0]}" in page.inner_text("table.servers")
    assert f'title="{version}"' in page.content()
    screenshot(page, "servers-list")
    server = Server.objects.get(name="sandbox")
    assert server.version == version and server.password == "s3cret!"
    page.goto(f"{live_server.url}/servers/{server.pk}/edit/")
    assert page.input_value("input[name=password]") == ""  # the stored one is never shown


AUTOCOMMIT_UPDATES = 600


def add_through_the_form(page, live_server, mariadb, name: str) -> None:
    page.goto(live_server.url + "/servers/add/")
    page.fill("input[name=name]", name)
    page.fill("input[name=host]", "127.0.0.1")
    page.fill("input[name=port]", str(mariadb.port))
    page.fill("input[name=user]", "steady")
    page.fill("input[name=password]", "s3cret!")
    page.click("button:has-text('Test connection')")
    page.locator("#check-result").wait_for()


def test_a_default_mariadb_is_said_to_count_explicit_transactions_until_its_statement_is_run(
        page, live_server, mariadb, monkeypatch):
    # The suite's MariaDB leaves the transaction instrument and InnoDB's trx counters off, as MariaDB does.
    add_through_the_form(page, live_server, mariadb, "default")
    counter = page.locator("#check-result dd.tps-counter").inner_text()
    assert "explicit transactions only, autocommit statements are not counted" in counter
    fix = page.locator("#check-result li.weakened-item", has_text="TPS").locator("code.fix").inner_text()
    statement = re.search(r"run (UPDATE performance_schema\.setup_instruments .*?) \(and add", fix).group(1)
    assert "performance-schema-instrument='transaction=ON'" in fix  # the line that keeps it after a restart
    screenshot(page, "servers-test-connection-default-mariadb")
    page.click("button:has-text('Save')")  # the password kept from the test
    page.wait_for_url(live_server.url + "/servers/")
    server = Server.objects.get(name="default")

    poll_server(server.id, only=["global_status"])
    for url, table in (("/servers/", "table.servers"), ("/", "table.fleet")):
        page.goto(live_server.url + url)
        said = page.locator(f"{table} .tps-basis").text_content()
        assert "explicit transactions only: autocommit statements are not counted" in said and statement in said
    screenshot(page, "servers-list-explicit-only")

    load = Load(mariadb)
    mariadb.execute(f"REPLACE INTO {LOAD_DB}.t (id, v) VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")
    monkeypatch.setattr(pool, "BASIS_RECHECK_S", 0)  # the collector takes a new counter within a minute
    try:
        mariadb.execute(statement)
        poll_server(server.id, only=["global_status"])  # the new counter's first reading: its baseline
        load.updates(AUTOCOMMIT_UPDATES)
        outcome = poll_server(server.id, only=["global_status"]).sources[0]
    finally:
        mariadb.execute(DISABLE_SUMMARY)
    counted = outcome.sample.values["tps"]
    assert abs(counted - AUTOCOMMIT_UPDATES) <= 0.02 * AUTOCOMMIT_UPDATES, counted
    page.goto(live_server.url + "/servers/")
    assert page.locator("table.servers .tps-basis").text_content() == "every transaction"
