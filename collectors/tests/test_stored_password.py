"""A stored password only goes where it was stored for, never in clear text to an unverified server, and only
to the TLS certificate or RSA key pinned when it was typed (collectors.pinning)."""

import hashlib
import ssl

import pymysql
import pytest

from collectors.batch import poll_server
from collectors.connection import ConnectError, open_connection
from collectors.models import ServerHealth
from collectors.tls import TLS
from servers.models import Server
from testing.fake_mysql import fake_clear_text_server, fake_mysql_server
from testing.mariadb import running_sandbox
from testing.servers import make_server
from testing.tls_certs import make_ca

pytestmark = pytest.mark.django_db

SECRET = "s3cret!"  # the sandbox monitoring user's, so the unchanged destination connects


@pytest.fixture
def fake():
    with fake_clear_text_server() as server:
        yield server


@pytest.fixture
def stored(mariadb):
    return make_server("prod", port=mariadb.port, password=SECRET)


def edit_data(server: Server, **changes) -> dict:
    data = {"name": server.name, "host": server.host, "port": server.port, "socket": "", "user": server.user,
            "password": "", "tls_mode": server.tls_mode, "tags": "", "poll_interval": 10, "enabled": "on",
            "action": "test"}
    return {**data, **changes}


def test_the_fake_server_does_get_the_password_from_a_plain_client(fake):
    """The attack is real: PyMySQL alone follows the switch to mysql_clear_password."""
    with pytest.raises(pymysql.MySQLError):  # it hangs up once it has the password
        pymysql.connect(host="127.0.0.1", port=fake.port, user="steady", password=SECRET, connect_timeout=3)
    assert fake.heard(SECRET)


def test_our_connections_refuse_clear_text_auth_without_verified_tls(fake):
    with pytest.raises(ConnectError, match="clear-text authentication plugin 'mysql_clear_password': refused"):
        open_connection(host="127.0.0.1", port=fake.port, user="steady", password=SECRET)
    assert fake.connections == 1 and not fake.heard(SECRET)


@pytest.mark.parametrize("change", ["host", "port", "user"])
def test_test_connection_never_sends_the_stored_password_elsewhere(client, admin_user, stored, fake, change):
    client.force_login(admin_user)
    moved = {"host": {"host": "localhost", "port": fake.port}, "port": {"port": fake.port},
             "user": {"port": fake.port, "user": "other"}}[change]
    Server.objects.filter(pk=stored.pk).update(port=fake.port if change == "user" else stored.port)
    stored.refresh_from_db()
    response = client.post(f"/servers/{stored.pk}/edit/", edit_data(stored, **moved))
    html = response.content.decode()
    assert response.status_code == 200 and "type the password again" in html
    assert fake.connections == 0 and not fake.heard(SECRET)
    stored.refresh_from_db()
    assert stored.user == "steady" and stored.password == SECRET


def test_weakening_tls_needs_the_password_again(client, admin_user, stored):
    Server.objects.filter(pk=stored.pk).update(tls_mode="required")
    stored.refresh_from_db()
    client.force_login(admin_user)
    response = client.post(f"/servers/{stored.pk}/edit/", edit_data(stored, tls_mode="disabled", action="save"))
    assert "type the password again" in response.content.decode()
    assert Server.objects.get(pk=stored.pk).tls_mode == "required"


def test_an_unchanged_destination_still_tests_with_the_stored_password(client, admin_user, stored):
    client.force_login(admin_user)
    response = client.post(f"/servers/{stored.pk}/edit/", edit_data(stored))
    assert "connection OK" in response.content.decode()


def test_a_typed_password_goes_to_the_new_destination(client, admin_user, stored, fake):
    """The user chose to send this one; the clear-text request is still refused."""
    client.force_login(admin_user)
    response = client.post(f"/servers/{stored.pk}/edit/", edit_data(stored, port=fake.port, password="typed-pw"))
    html = response.content.decode()
    assert "connection FAILED" in html and "clear-text" in html
    assert fake.connections == 1 and not fake.heard("typed-pw") and not fake.heard(SECRET)


@pytest.mark.parametrize("mode, sent", [("preferred", False), ("required", False), ("verify-ca", True),
                                        ("verify-identity", True)])
def test_clear_text_goes_only_over_tls_whose_certificate_was_verified(tmp_path, mode, sent):
    certs = make_ca(tmp_path)
    with fake_clear_text_server(str(certs.server_cert), str(certs.server_key)) as tls_fake:
        try:
            open_connection(host="127.0.0.1", port=tls_fake.port, user="steady", password=SECRET,
                            tls=TLS(mode, str(certs.ca)))
        except ConnectError as exc:  # refused, or (when sent) the fake hanging up with the password
            assert sent or "clear-text authentication plugin" in str(exc)
        assert tls_fake.heard(SECRET) is sent


@pytest.mark.parametrize("plugin, first, tls", [("caching_sha2_password", "mysql_native_password", False),
                                                ("sha256_password", "mysql_native_password", False),
                                                ("caching_sha2_password", "caching_sha2_password", True),
                                                ("sha256_password", "sha256_password", True)])
def test_test_connection_with_nothing_typed_gives_an_impostor_nothing(client, admin_user, stored, tmp_path,
                                                                      plugin, first, tls):
    """Someone else answers at the stored address and asks for the password (RSA, or clear inside TLS)."""
    certs = make_ca(tmp_path) if tls else None
    files = (str(certs.server_cert), str(certs.server_key)) if tls else ()
    with fake_mysql_server(*files, plugin=plugin, first_plugin=first) as impostor:
        Server.objects.filter(pk=stored.pk).update(port=impostor.port)  # nothing pinned, as before pinning
        client.force_login(admin_user)
        html = client.post(f"/servers/{stored.pk}/test/").content.decode()
        assert "connection FAILED" in html and "refused" in html and "type the password (Edit) and test" in html
        assert impostor.connections == 1 and not impostor.heard(SECRET)


@pytest.fixture(scope="module")
def tls_certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pin-pages")
    return make_ca(folder / "real"), make_ca(folder / "impostor", "Impostor CA")


@pytest.fixture(scope="module")
def tls_mariadb(tls_certs):
    with running_sandbox("steadystate-mariadb-pin-", performance_schema=False,
                         extra_args=tls_certs[0].server_args()) as server:
        yield server


def test_a_typed_password_pins_the_certificate_and_an_impostor_gets_nothing(client, admin_user, tls_mariadb,
                                                                            tls_certs):
    real, other = tls_certs
    expected = hashlib.sha256(ssl.PEM_cert_to_DER_cert(real.server_cert.read_text())).hexdigest()
    client.force_login(admin_user)
    data = {"name": "tls-db", "host": "127.0.0.1", "port": tls_mariadb.port, "socket": "", "user": "steady",
            "password": SECRET, "tls_mode": "preferred", "tags": "", "poll_interval": 10, "enabled": "on",
            "action": "save"}
    response = client.post("/servers/add/", data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    server = Server.objects.get(name="tls-db")
    assert (server.pinned_kind, server.pinned_sha256) == ("tls", expected) and server.pinned_at
    assert f"<strong>Pinned</strong>: TLS certificate, SHA-256 {expected}" in client.get(
        f"/servers/{server.pk}/edit/").content.decode()
    html = client.post(f"/servers/{server.pk}/test/").content.decode()  # the stored password, the real server
    assert "connection OK" in html and f"TLS certificate, SHA-256 {expected}" in html

    with fake_mysql_server(str(other.server_cert), str(other.server_key), plugin="sha256_password",
                           first_plugin="sha256_password") as impostor:
        Server.objects.filter(pk=server.pk).update(port=impostor.port)  # someone else at the address
        html = client.post(f"/servers/{server.pk}/test/").content.decode()
        assert "connection FAILED" in html and f"is not the pinned TLS certificate, SHA-256 {expected}" in html
        assert "type the password again" in html
        assert not poll_server(server.pk).ok  # every poll refuses too, saying why
        assert "is not the pinned TLS certificate" in ServerHealth.objects.get(server=server).last_error
        assert impostor.connections == 2 and impostor.received == []  # not even a scramble


def test_saving_a_typed_password_without_a_successful_test_unpins(client, admin_user, stored):
    Server.objects.filter(pk=stored.pk).update(pinned_kind="rsa", pinned_sha256="ab" * 32, pinned_key="x")
    client.force_login(admin_user)
    client.post(f"/servers/{stored.pk}/edit/", edit_data(stored, port=1, password="typed-pw", action="save",
                                                         save_anyway="1"))
    stored.refresh_from_db()
    assert (stored.port, stored.pinned_kind, stored.pinned_sha256, stored.pinned_at) == (1, "", "", None)
    html = client.get(f"/servers/{stored.pk}/edit/").content.decode()
    assert "<strong>Pinned</strong>: nothing: the stored password is not sent" in html
