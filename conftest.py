"""Fixtures shared by every app's tests: real servers, started by the suite."""

import pytest

from testing.collectors import DISABLE_SUMMARY, ENABLE_SUMMARY
from testing.mariadb import running_sandbox


@pytest.fixture(scope="session")
def mariadb():
    """A private MariaDB with performance_schema ON, and a monitoring user."""
    with running_sandbox("steadystate-mariadb-") as server:
        yield server


@pytest.fixture(scope="session")
def node_exporter_url():
    """Debian's prometheus-node-exporter on a private port, with only the collectors we read."""
    from monitor.runtime.node_exporter import running

    with running() as url:
        yield url


@pytest.fixture
def transaction_instrument(mariadb):
    """performance_schema's transaction instrument on, as docs/metrics.md asks; off again after."""
    mariadb.execute(ENABLE_SUMMARY)
    yield
    mariadb.execute(DISABLE_SUMMARY)


@pytest.fixture
def monitor_credentials(mariadb):
    return {"host": "127.0.0.1", "port": mariadb.port, "user": "steady", "password": "s3cret!"}


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    import os

    from playwright.sync_api import sync_playwright

    from testing.browser import CHROMIUM_ARGS, chromium_path

    # Playwright's sync API keeps an event loop in this thread; the ORM calls
    # the tests make around it are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("admin", "admin@example.com", "pw-for-tests")


@pytest.fixture
def page(browser, live_server, admin_user):
    """A logged-in browser page on the live test server."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "pw-for-tests")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    yield page
    context.close()
