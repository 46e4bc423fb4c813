"""The stored password goes only to a server proving the pinned TLS certificate or RSA key.

The impostors are testing.fake_mysql servers at the stored address: they ask for
caching_sha2_password's full authentication or sha256_password, and decrypt
whatever is RSA-encrypted with their own key. Expected fingerprints are computed
here from the certificate files and the fakes' keys, not by collectors.pinning.
"""

import hashlib
import ssl

import pymysql
import pytest
from cryptography.hazmat.primitives import serialization

from collectors.connection import ConnectError, open_connection
from collectors.pinning import Pin
from testing.fake_mysql import fake_mysql_server
from testing.tls_certs import make_ca

SECRET = "s3cret!"
# (plugin asked for, the handshake's plugin): by a switch, or from the start.
RSA_EXCHANGES = [("caching_sha2_password", "mysql_native_password"), ("sha256_password", "mysql_native_password"),
                 ("caching_sha2_password", "caching_sha2_password"), ("sha256_password", "sha256_password")]


def rsa_sha256(pem: bytes) -> str:
    der = serialization.load_pem_public_key(pem).public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).hexdigest()


def cert_sha256(path) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(path.read_text())).hexdigest()


def connect(fake, **kwargs):
    return open_connection(host="127.0.0.1", port=fake.port, user="steady", password=SECRET, guards=False, **kwargs)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pin-certs")
    return make_ca(folder / "real"), make_ca(folder / "impostor", "Impostor CA")


@pytest.mark.parametrize("plugin, first", RSA_EXCHANGES)
def test_plain_pymysql_gives_an_impostor_the_password(plugin, first):
    """The break: PyMySQL requests the impostor's key and encrypts the password with it."""
    with fake_mysql_server(plugin=plugin, first_plugin=first) as impostor:
        with pytest.raises(pymysql.MySQLError):
            pymysql.connect(host="127.0.0.1", port=impostor.port, user="steady", password=SECRET, connect_timeout=3)
        assert impostor.heard(SECRET)


@pytest.mark.parametrize("plugin, first", RSA_EXCHANGES)
def test_the_stored_password_is_never_rsa_encrypted_for_an_unpinned_key(plugin, first):
    with fake_mysql_server(plugin=plugin, first_plugin=first) as impostor:
        with pytest.raises(ConnectError, match="encrypted with its RSA public key, and no key is pinned"):
            connect(impostor)
        assert impostor.connections == 1 and not impostor.heard(SECRET)


@pytest.mark.parametrize("plugin, first", [("caching_sha2_password", "mysql_native_password"),
                                           ("sha256_password", "mysql_native_password"),
                                           ("sha256_password", "sha256_password")])
def test_nor_sent_in_clear_inside_tls_nobody_verified_or_pinned(certs, plugin, first):
    _, other = certs
    with fake_mysql_server(str(other.server_cert), str(other.server_key), plugin=plugin, first_plugin=first) as fake:
        with pytest.raises(pymysql.MySQLError):  # plain PyMySQL (preferred TLS) sends it
            pymysql.connect(host="127.0.0.1", port=fake.port, user="steady", password=SECRET, connect_timeout=3)
        assert fake.heard(SECRET)
        fake.received.clear()
        with pytest.raises(ConnectError, match="over TLS whose certificate is neither verified"):
            connect(fake)
        assert not fake.heard(SECRET)


def test_a_typed_password_pins_the_rsa_key_and_a_different_key_is_refused():
    with fake_mysql_server(plugin="caching_sha2_password", accept=SECRET) as real:
        conn = connect(real, trust_new=True)
        conn.close()
        pin = conn.guard.proof
        assert (pin.kind, pin.sha256) == ("rsa", rsa_sha256(real.public_pem))
        connect(real, pin=pin).close()  # the stored password, to the pinned key: accepted
        assert real.received == [SECRET.encode()] * 2
    with fake_mysql_server(plugin="caching_sha2_password") as impostor:  # same address, its own key
        with pytest.raises(ConnectError, match=f"RSA public key \\(SHA-256 {rsa_sha256(impostor.public_pem)}\\) "
                                               f"is not the pinned one \\(SHA-256 {pin.sha256}\\)"):
            connect(impostor, pin=pin)
        assert not impostor.heard(SECRET) and b"" not in impostor.received  # not even encrypted for another key


def test_a_pinned_certificate_lets_the_password_through_and_another_stops_before_authentication(certs):
    real_ca, other = certs
    with fake_mysql_server(str(real_ca.server_cert), str(real_ca.server_key), plugin="caching_sha2_password",
                           accept=SECRET) as real:
        conn = connect(real, trust_new=True)
        conn.close()
        pin = conn.guard.proof
        assert (pin.kind, pin.sha256) == ("tls", cert_sha256(real_ca.server_cert))
        connect(real, pin=pin).close()  # clear text inside the pinned TLS: the real server
        assert real.received == [SECRET.encode()] * 2
    with fake_mysql_server(str(other.server_cert), str(other.server_key), plugin="mysql_native_password") as impostor:
        with pytest.raises(ConnectError, match=f"TLS certificate \\(SHA-256 {cert_sha256(other.server_cert)}\\) "
                                               "is not the pinned TLS certificate"):
            connect(impostor, pin=pin)
        assert impostor.connections == 1 and impostor.received == []  # not even the handshake response


def test_a_pinned_certificate_and_no_tls_any_more_is_refused(certs):
    real_ca, _ = certs
    pin = Pin("tls", cert_sha256(real_ca.server_cert))
    with fake_mysql_server(plugin="mysql_native_password") as impostor:
        with pytest.raises(ConnectError, match="no longer offers TLS"):
            connect(impostor, pin=pin)
        assert impostor.received == []
