"""Secure cookies, HSTS and the Content-Security-Policy: their settings, and pages that keep to the policy."""

import json
import re
import subprocess
import sys

import pytest
from django.test import Client

from monitor.env import BASE_DIR

pytestmark = pytest.mark.django_db

READ = ("import json, monitor.settings as s; print(json.dumps([s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, getattr(s, 'SECURE_PROXY_SSL_HEADER', None), "
        "s.CONTENT_SECURITY_POLICY]))")


def settings_with(tmp_path, **env) -> list:
    done = subprocess.run([sys.executable, "-c", READ], cwd=BASE_DIR, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "STEADYSTATE_VAR": str(tmp_path), **env})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_settings_read_from_the_environment(tmp_path):
    secure, csrf, hsts, subdomains, proxy, csp = settings_with(tmp_path)
    assert (secure, csrf, hsts, subdomains, proxy) == (False, False, 0, False, None)  # plain http works out of the box
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert settings_with(tmp_path, SECURE_COOKIES="1", HSTS_SECONDS="31536000", HSTS_INCLUDE_SUBDOMAINS="yes",
                         TRUST_X_FORWARDED_PROTO="on", CONTENT_SECURITY_POLICY="default-src 'none'") == [
        True, True, 31536000, True, ["HTTP_X_FORWARDED_PROTO", "https"], "default-src 'none'"]
    assert settings_with(tmp_path, CONTENT_SECURITY_POLICY="")[-1] == ""


def test_every_answer_carries_the_policy(admin_user):
    client = Client()
    assert "script-src 'self'" in client.get("/accounts/login/")["Content-Security-Policy"]
    client.force_login(admin_user)
    for url in ("/", "/runs/", "/admin/", "/export/runs.csv"):
        assert "script-src 'self'" in client.get(url)["Content-Security-Policy"], url


def test_behind_a_tls_proxy_cookies_are_secure_and_hsts_is_sent(settings, admin_user):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()
    page = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert page["Strict-Transport-Security"] == "max-age=31536000"
    assert page.cookies["csrftoken"]["secure"]
    login = client.post("/accounts/login/", {"username": "admin", "password": "pw-for-tests"},
                        HTTP_X_FORWARDED_PROTO="https")
    assert login.status_code == 302 and login.cookies["sessionid"]["secure"]
    assert "Strict-Transport-Security" not in Client().get("/accounts/login/")  # not over plain http


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def test_no_template_has_an_inline_script_or_handler_the_policy_would_block():
    found = [f"{path.relative_to(BASE_DIR)}: {m.group(0)[:60]}" for path in (BASE_DIR / "templates").rglob("*.html")
             for pattern in (INLINE_SCRIPT, INLINE_HANDLER) for m in pattern.finditer(path.read_text())]
    assert found == [], "move them into static/js (see static/js/page.js): " + "; ".join(found)
