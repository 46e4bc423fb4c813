"""Under `up`'s gunicorn, slow-read CSV exports are bounded and the login page keeps answering."""

import http.client
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from monitor.management.commands.up import gunicorn_args
from testing.dashboards import make_server, write_polls
from testing.mariadb import free_port

pytestmark = pytest.mark.django_db(transaction=True)  # the gunicorn process reads what the test wrote


def child_env(tmp_path) -> dict:
    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"].get("host", "")  # the embedded PostgreSQL's socket directory
    url = f"postgresql://{db['USER']}:{db['PASSWORD'] or ''}@/{db['NAME']}?host={host}"
    return {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "monitor.settings", "DATABASE_URL": url,
            "REDIS_URL": settings.REDIS_URL, "STEADYSTATE_VAR": str(tmp_path), "SECRET_KEY": settings.SECRET_KEY,
            "CREDENTIAL_KEY": settings.CREDENTIAL_KEY, "LOG_LEVEL": "WARNING"}


@pytest.fixture
def web(tmp_path, request):
    port = free_port()
    bounds = getattr(request, "param", {})  # EXPORT_PER_* for the web process, default: the product's
    cmd = [sys.executable, "-m", "gunicorn", "monitor.wsgi:application",
           *gunicorn_args({"host": "127.0.0.1", "port": port, "web_workers": 1}, "WARNING")]
    log = open(tmp_path / "web.log", "w")
    server = subprocess.Popen(cmd, cwd=settings.BASE_DIR, env={**child_env(tmp_path), **bounds}, stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if get(port, "/accounts/login/").status == 200:
                break
        except OSError:
            time.sleep(0.3)
    yield port
    server.terminate()
    server.wait(timeout=30)
    log.close()
    print((tmp_path / "web.log").read_text()[-3000:])


def get(port: int, path: str, cookie: str = "", timeout: float = 10) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path, headers={"Cookie": f"sessionid={cookie}"} if cookie else {})
    return conn.getresponse()


def big_export() -> str:
    server = make_server("big", poll_interval=1)
    write_polls(server, 30, step=1)
    end = datetime.now(UTC).replace(microsecond=0)
    return (f"/export.csv?server={server.pk}&metrics=tps&step=1"  # 13 days at 1 s: 1.1 million rows, ~30 MB
            f"&from={(end - timedelta(days=13)).isoformat()}&to={end.isoformat()}".replace("+00:00", "Z"))


def sessions(django_user_model, names: str) -> list[str]:
    cookies = []
    for name in names:
        client = Client()
        client.force_login(django_user_model.objects.create_user(name, password="pw", is_superuser=True))
        cookies.append(client.cookies["sessionid"].value)
    return cookies


@pytest.mark.parametrize("web", [{"EXPORT_PER_USER": "100", "EXPORT_PER_PROCESS": "100"}], indirect=True)
def test_without_the_bounds_ten_slow_exports_stall_the_login_page(web, django_user_model):
    """The failure the bounds prevent: one viewer's downloads take every thread."""
    big, (cookie,) = big_export(), sessions(django_user_model, "a")
    held = []
    for _ in range(10):
        try:
            response = get(web, big, cookie, timeout=5)
        except TimeoutError:
            break  # every thread is taken already
        assert response.status == 200 and response.read(1000)
        held.append(response)
    assert len(held) >= 8  # gunicorn_conf's threads
    with pytest.raises(TimeoutError):
        get(web, "/accounts/login/", timeout=3)
    for response in held:
        response.close()


def test_slow_readers_get_two_exports_each_and_the_login_page_answers(web, django_user_model):
    big, cookies = big_export(), sessions(django_user_model, "abc")
    held = []
    for cookie in cookies[:2]:
        for _ in range(2):
            response = get(web, big, cookie)
            assert response.status == 200, response.read()
            assert response.read(1000)  # then read no more: the server blocks once the socket buffers fill
            held.append(response)
        if cookie == cookies[0]:
            third = get(web, big, cookie)
            assert third.status == 429 and b"already have 2 CSV exports" in third.read()
    busy = get(web, big, cookies[2])
    assert busy.status == 429 and b"EXPORT_PER_PROCESS" in busy.read()
    started = time.monotonic()
    assert get(web, "/accounts/login/", timeout=5).status == 200
    print(f"login page with {len(held)} exports streaming: {time.monotonic() - started:.3f} s")
    for response in held:
        response.close()  # the client goes away: its slot is given back
    deadline = time.monotonic() + 30
    while (status := get(web, big, cookies[2]).status) == 429 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert status == 200
