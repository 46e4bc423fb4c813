"""TLS modes against a MariaDB of our own serving a certificate from a throw-away CA."""

import tempfile
from pathlib import Path

import pytest

from collectors.batch import poll_server
from collectors.probe import check_connection
from collectors.tls import TLS
from servers.models import Server
from testing.mariadb import running_sandbox
from testing.tls_certs import make_ca

PASSWORD = "s3cret!"
# Every test here with the database, so pytest-django keeps them together and the
# module's MariaDB starts once.
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def certs():
    with tempfile.TemporaryDirectory(prefix="steadystate-tls-") as folder:
        yield make_ca(Path(folder) / "good"), make_ca(Path(folder) / "other", "Some other CA")


@pytest.fixture(scope="module")
def tls_server(certs):
    good, _ = certs
    with running_sandbox("steadystate-mariadb-tls-", performance_schema=False,
                         extra_args=good.server_args()) as server:
        # Accounts that only TLS, or only a client certificate of our CA, may use.
        server.create_monitor_user("tlsonly", PASSWORD)
        server.execute("ALTER USER 'tlsonly'@'%' REQUIRE SSL")
        server.create_monitor_user("x509only", PASSWORD)
        server.execute("ALTER USER 'x509only'@'%' REQUIRE X509")
        yield server


def check(server, mode: str, ca: Path | None, host: str = "127.0.0.1", user: str = "tlsonly", **files):
    return check_connection(host=host, port=server.port, user=user, password=PASSWORD,
                            tls=TLS(mode, str(ca or ""), **{k: str(v) for k, v in files.items()}))


def test_verify_identity_checks_the_ca_and_the_host_name(tls_server, certs):
    good, other = certs
    result = check(tls_server, "verify-identity", good.ca)
    assert result.connected, result.error
    assert "TLSv1" in result.tls and "CN=steadystate-test-mariadb" in result.tls
    assert "issued by CN=SteadyState test CA" in result.tls and "host name checked" in result.tls
    refused = check(tls_server, "verify-identity", other.ca)
    assert "TLS handshake failed" in refused.error and "certificate verify failed" in refused.error
    # The certificate names 127.0.0.1, not "localhost": verify-identity refuses, verify-ca does not.
    assert "TLS handshake failed" in check(tls_server, "verify-identity", good.ca, host="localhost").error
    assert check(tls_server, "verify-ca", good.ca, host="localhost").connected


def test_required_and_preferred_encrypt_without_verifying(tls_server):
    for mode in ("required", "preferred"):
        result = check(tls_server, mode, None)
        assert result.connected, (mode, result.error)
        assert "TLSv1" in result.tls and "NOT verified" in result.tls, mode


def test_disabled_means_no_tls(tls_server):
    assert "access denied" in check(tls_server, "disabled", None).error  # REQUIRE SSL account
    result = check(tls_server, "disabled", None, user="steady")
    assert result.connected and result.tls == "not encrypted (no TLS)"


def test_a_client_certificate_is_sent_when_set(tls_server, certs):
    good, _ = certs
    assert "access denied" in check(tls_server, "verify-ca", good.ca, user="x509only").error
    result = check(tls_server, "verify-ca", good.ca, user="x509only", cert=good.client_cert, key=good.client_key)
    assert result.connected, result.error


def test_required_fails_against_a_server_without_tls(mariadb):
    result = check_connection(host="127.0.0.1", port=mariadb.port, user="steady", password=PASSWORD,
                              tls=TLS("required"))
    # Before: "SSL is required but the server doesn't support it", PyMySQL's words, with nothing to do.
    assert result.error == (f"127.0.0.1:{mariadb.port}: TLS mode requires TLS and the server offers none (have_ssl "
                            "is not YES): turn it on in its option file (ssl_cert, ssl_key, then restart it), or set "
                            "this server's TLS mode to preferred")


def test_the_collectors_poll_with_the_servers_tls_settings(tls_server, certs, client, admin_user):
    good, other = certs
    def saved(name: str, ca: Path) -> Server:
        server = Server(name=name, host="127.0.0.1", port=tls_server.port, user="tlsonly",
                        tls_mode="verify-identity", tls_ca=str(ca))
        server.password = PASSWORD
        server.save()
        return server

    server = saved("tls", good.ca)
    assert poll_server(server.id).ok
    result = poll_server(saved("tls-other-ca", other.ca).id)
    assert not result.ok and "TLS handshake failed" in result.connect_error
    client.force_login(admin_user)
    html = client.post(f"/servers/{server.pk}/edit/", {
        "name": "tls", "host": "127.0.0.1", "port": tls_server.port, "socket": "", "user": "tlsonly",
        "password": PASSWORD, "tls_mode": "verify-ca", "tls_ca": "/no/such/ca.pem", "tags": "",
        "poll_interval": 10, "enabled": "on", "action": "test"}).content.decode()
    assert "/no/such/ca.pem: no such file, or not readable" in html
